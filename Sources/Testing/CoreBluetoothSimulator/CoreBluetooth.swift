// swift-format-ignore-file: AlwaysUseLowerCamelCase

// A simulated CoreBluetooth for Linux (the package builds it only there, as a module named
// `CoreBluetooth`): the classes, delegate protocols and keys the app's Bluetooth adapter uses,
// with Apple's documented signatures, behaving as the documentation describes — callbacks on
// the manager's queue, one scan per central, writes without response that a full radio queue
// drops (so the adapter must check `canSendWriteWithoutResponse`), `updateValue` returning false
// then `peripheralManagerIsReady`, connections that never time out, unsubscribe as the only
// disconnect a peripheral hears, services cleared when Bluetooth goes off. Phones meet in a
// `SimulatedAir`; tests drive power, range and cuts through it. Never shipped.
import Dispatch
import Foundation

// MARK: - The air

/// Where simulated phones meet. Managers created while `SimulatedAir.current` is an air live
/// in it; tests make a fresh one each (and run serialized).
public final class SimulatedAir: @unchecked Sendable {
    // @unchecked: every mutable property is guarded by `lock`.

    /// The air new managers join.
    nonisolated(unsafe) public static var current = SimulatedAir()

    /// What the radio does.
    public struct Conditions: Sendable {
        /// ATT MTU every connection negotiates.
        public var attMTU: Int
        /// Writes without response in flight before `canSendWriteWithoutResponse` is false.
        public var writeQueue: Int
        /// Notifications in flight before `updateValue` returns false.
        public var notifyQueue: Int
        /// The state a new manager reaches after its first update.
        public var initialState: CBManagerState
        /// How often a scan reports each advertising phone (duplicates on).
        public var advertisingInterval: DispatchTimeInterval
        /// UTF-8 bytes of an advertised local name that reach a scanner (nil: all of it). iOS
        /// promises only 10 bytes of scan response (8 after the record's header) beside a
        /// 128-bit service UUID, and cuts the rest.
        public var localNameBytes: Int?

        public init(
            attMTU: Int = 185, writeQueue: Int = 2, notifyQueue: Int = 2, initialState: CBManagerState = .poweredOn,
            advertisingInterval: DispatchTimeInterval = .milliseconds(50), localNameBytes: Int? = nil
        ) {
            self.localNameBytes = localNameBytes
            self.attMTU = attMTU
            self.writeQueue = writeQueue
            self.notifyQueue = notifyQueue
            self.initialState = initialState
            self.advertisingInterval = advertisingInterval
        }
    }

    /// What happened, for assertions.
    public struct Counters: Sendable, Equatable {
        public var writes = 0
        /// Writes issued while `canSendWriteWithoutResponse` was false: lost, as on a phone.
        public var droppedWrites = 0
        public var notifications = 0
        public var refusedNotifications = 0
        public var connections = 0
        public var cuts = 0
        public var longestPacket = 0
        /// Calls made while the manager was not powered on (CoreBluetooth logs "API MISUSE").
        public var misuses = 0
    }

    public let conditions: Conditions
    let lock = NSRecursiveLock()  // accessors that lock are also called under the lock
    let timerQueue = DispatchQueue(label: "simulated-air")
    var centrals: [CBCentralManager] = []
    var peripherals: [CBPeripheralManager] = []
    var links: [SimulatedLink] = []
    var counters = Counters()
    /// Phones (peripheral managers' device ids) out of the centrals' range.
    var outOfRange: Set<UUID> = []
    /// Cut the connection after this many packets (both directions), once per entry.
    var cutAfterPackets: [Int] = []
    /// Turn the centrals' Bluetooth off after this many packets.
    var powerOffAfterPackets: Int?
    var peripheralsOffAfterPackets: Int?
    var outOfRangeAfterPackets: Int?
    var packets = 0

    public init(_ conditions: Conditions = Conditions()) {
        self.conditions = conditions
    }

    public var snapshot: Counters { lock.withLock { counters } }

    func locked<T>(_ body: () -> T) -> T { lock.withLock(body) }

    // MARK: Test controls

    /// The phone of `manager` goes out of range (connections drop, scans stop seeing it) or
    /// comes back.
    public func setInRange(_ manager: CBPeripheralManager, _ inRange: Bool) {
        let cut: [SimulatedLink] = locked {
            if inRange {
                outOfRange.remove(manager.deviceID)
                return []
            }
            outOfRange.insert(manager.deviceID)
            return links.filter { $0.peripheralManager === manager }
        }
        for link in cut { link.cut(error: SimulatedBluetoothError.outOfRange) }
    }

    /// Every payee phone (peripheral manager) goes out of range, or comes back.
    public func setPeripheralsInRange(_ inRange: Bool) {
        for manager in locked({ peripherals }) { setInRange(manager, inRange) }
    }

    /// Every payee phone's Bluetooth turns on or off.
    public func setPeripheralsState(_ state: CBManagerState) {
        for manager in locked({ peripherals }) { manager.simulateState(state) }
    }

    /// Takes the payee phones out of range once `packets` packets have crossed.
    public func outOfRange(afterPackets packets: Int) { locked { outOfRangeAfterPackets = packets } }

    /// Turns the payee phones' Bluetooth off once `packets` packets have crossed.
    public func powerOffPeripherals(afterPackets packets: Int) { locked { peripheralsOffAfterPackets = packets } }

    /// Cuts the first connection after `packets` packets have crossed (each entry once).
    public func cut(afterPackets packets: Int...) { locked { cutAfterPackets = packets } }

    /// Turns the centrals' Bluetooth off (the payer's phone) once `packets` packets crossed.
    public func powerOffCentrals(afterPackets packets: Int) {
        locked { powerOffAfterPackets = packets }
    }

    /// A packet crossed: counts it, and cuts or powers off when a test asked for it.
    func crossed(_ link: SimulatedLink, bytes: Int) {
        enum Then { case nothing, cut, powerOff([CBCentralManager]), peripheralsOff, outOfRange }
        let then: Then = locked {
            packets += 1
            counters.longestPacket = max(counters.longestPacket, bytes)
            if let first = cutAfterPackets.first, packets >= first {
                cutAfterPackets.removeFirst()
                return .cut
            }
            if let after = powerOffAfterPackets, packets >= after {
                powerOffAfterPackets = nil
                return .powerOff(centrals)
            }
            if let after = peripheralsOffAfterPackets, packets >= after {
                peripheralsOffAfterPackets = nil
                return .peripheralsOff
            }
            if let after = outOfRangeAfterPackets, packets >= after {
                outOfRangeAfterPackets = nil
                return .outOfRange
            }
            return .nothing
        }
        switch then {
        case .nothing: break
        case .cut: link.cut(error: SimulatedBluetoothError.connectionLost)
        case .powerOff(let managers): for manager in managers { manager.simulateState(.poweredOff) }
        case .peripheralsOff: setPeripheralsState(.poweredOff)
        case .outOfRange: setPeripheralsInRange(false)
        }
    }

    func link(_ central: CBCentralManager, _ peripheral: CBPeripheral) -> SimulatedLink? {
        locked { links.first { $0.centralManager === central && $0.peripheral === peripheral } }
    }
}

public enum SimulatedBluetoothError: Error, LocalizedError {
    case connectionLost, outOfRange, poweredOff

    public var errorDescription: String? {
        switch self {
        case .connectionLost: "The connection has timed out unexpectedly."
        case .outOfRange: "The peer went out of range."
        case .poweredOff: "Bluetooth was turned off."
        }
    }
}

/// One connection between a central manager and a peripheral manager.
final class SimulatedLink: @unchecked Sendable {
    // @unchecked: mutable state is guarded by the air's lock.
    let air: SimulatedAir
    let centralManager: CBCentralManager
    let peripheralManager: CBPeripheralManager
    let peripheral: CBPeripheral
    /// How the peripheral manager sees the central.
    let central: CBCentral
    var writesInFlight = 0
    var notificationsInFlight = 0
    var owesWriteReady = false
    var subscribed: [CBMutableCharacteristic] = []
    var alive = true

    init(air: SimulatedAir, centralManager: CBCentralManager, peripheralManager: CBPeripheralManager, peripheral: CBPeripheral) {
        self.air = air
        self.centralManager = centralManager
        self.peripheralManager = peripheralManager
        self.peripheral = peripheral
        central = CBCentral(identifier: centralManager.deviceID, maximumUpdateValueLength: air.conditions.attMTU - 3)
    }

    /// The connection ends from outside (range, power): both sides hear it.
    func cut(error: any Error) {
        let subscriptions: [CBMutableCharacteristic]? = air.locked {
            guard alive else { return nil }
            alive = false
            air.counters.cuts += 1
            air.links.removeAll { $0 === self }
            let subs = subscribed
            subscribed = []
            return subs
        }
        guard let subscriptions else { return }
        peripheral.setState(.disconnected)
        centralManager.deliver { $0.centralManager(self.centralManager, didDisconnectPeripheral: self.peripheral, error: error) }
        for characteristic in subscriptions {
            peripheralManager.deliver {
                $0.peripheralManager(self.peripheralManager, central: self.central, didUnsubscribeFrom: characteristic)
            }
        }
    }
}

// MARK: - Managers

public enum CBManagerState: Int, Sendable {
    case unknown, resetting, unsupported, unauthorized, poweredOff, poweredOn
}

open class CBManager: NSObject, @unchecked Sendable {
    // @unchecked: `_state` is guarded by the air's lock.
    let air: SimulatedAir
    let queue: DispatchQueue
    let deviceID = UUID()
    private var _state = CBManagerState.unknown

    init(queue: DispatchQueue?) {
        air = SimulatedAir.current
        self.queue = queue ?? .main
    }

    open var state: CBManagerState { air.locked { _state } }

    func setState(_ state: CBManagerState) { air.locked { _state = state } }

    func misuse() -> Bool {
        guard state != .poweredOn else { return false }
        air.locked { air.counters.misuses += 1 }
        return true
    }

    /// Test control: Bluetooth turns on or off (or becomes unauthorized) for this manager.
    public func simulateState(_ state: CBManagerState) {}
}

open class CBUUID: NSObject, @unchecked Sendable {
    public let uuidString: String
    public init(string theString: String) { uuidString = theString.uppercased() }
    open override func isEqual(_ object: Any?) -> Bool { (object as? CBUUID)?.uuidString == uuidString }
    open override var hash: Int { uuidString.hashValue }
}

open class CBAttribute: NSObject, @unchecked Sendable {
    public let uuid: CBUUID
    init(uuid: CBUUID) { self.uuid = uuid }
}

open class CBService: CBAttribute, @unchecked Sendable {
    open weak var peripheral: CBPeripheral?
    open var isPrimary: Bool { true }
    open var characteristics: [CBCharacteristic]?
}

open class CBMutableService: CBService, @unchecked Sendable {
    public init(type UUID: CBUUID, primary isPrimary: Bool) { super.init(uuid: UUID) }
}

public struct CBCharacteristicProperties: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let broadcast = CBCharacteristicProperties(rawValue: 1)
    public static let read = CBCharacteristicProperties(rawValue: 2)
    public static let writeWithoutResponse = CBCharacteristicProperties(rawValue: 4)
    public static let write = CBCharacteristicProperties(rawValue: 8)
    public static let notify = CBCharacteristicProperties(rawValue: 16)
    public static let indicate = CBCharacteristicProperties(rawValue: 32)
}

public struct CBAttributePermissions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let readable = CBAttributePermissions(rawValue: 1)
    public static let writeable = CBAttributePermissions(rawValue: 2)
}

public enum CBCharacteristicWriteType: Int, Sendable {
    case withResponse, withoutResponse
}

open class CBCharacteristic: CBAttribute, @unchecked Sendable {
    open weak var service: CBService?
    public let properties: CBCharacteristicProperties
    open internal(set) var value: Data?
    open internal(set) var isNotifying = false
    /// The peripheral manager's characteristic this one mirrors (central side).
    weak var served: CBMutableCharacteristic?

    init(uuid: CBUUID, properties: CBCharacteristicProperties) {
        self.properties = properties
        super.init(uuid: uuid)
    }
}

open class CBMutableCharacteristic: CBCharacteristic, @unchecked Sendable {
    public var permissions: CBAttributePermissions
    public init(type UUID: CBUUID, properties: CBCharacteristicProperties, value: Data?, permissions: CBAttributePermissions) {
        self.permissions = permissions
        super.init(uuid: UUID, properties: properties)
        self.value = value
    }
}

open class CBPeer: NSObject, @unchecked Sendable {
    public let identifier: UUID
    init(identifier: UUID) { self.identifier = identifier }
}

open class CBCentral: CBPeer, @unchecked Sendable {
    public let maximumUpdateValueLength: Int
    init(identifier: UUID, maximumUpdateValueLength: Int) {
        self.maximumUpdateValueLength = maximumUpdateValueLength
        super.init(identifier: identifier)
    }
}

public enum CBPeripheralState: Int, Sendable {
    case disconnected, connecting, connected, disconnecting
}

public let CBAdvertisementDataLocalNameKey = "kCBAdvDataLocalName"
public let CBAdvertisementDataServiceUUIDsKey = "kCBAdvDataServiceUUIDs"
public let CBAdvertisementDataOverflowServiceUUIDsKey = "kCBAdvDataOverflowServiceUUIDs"
public let CBCentralManagerScanOptionAllowDuplicatesKey = "kCBScanOptionAllowDuplicates"
public let CBCentralManagerOptionShowPowerAlertKey = "kCBInitOptionShowPowerAlert"
public let CBCentralManagerOptionRestoreIdentifierKey = "kCBRestoreIdentifier"
public let CBPeripheralManagerOptionShowPowerAlertKey = "kCBInitOptionShowPowerAlert"
public let CBPeripheralManagerOptionRestoreIdentifierKey = "kCBRestoreIdentifier"

public struct CBATTError: Error, Sendable {
    public enum Code: Int, Sendable {
        case success = 0, invalidHandle, readNotPermitted, writeNotPermitted, invalidPdu, insufficientAuthentication,
            requestNotSupported, invalidOffset, insufficientAuthorization, prepareQueueFull, attributeNotFound,
            attributeNotLong, insufficientEncryptionKeySize, invalidAttributeValueLength, unlikelyError,
            insufficientEncryption, unsupportedGroupType, insufficientResources
    }
}

open class CBATTRequest: NSObject, @unchecked Sendable {
    public let central: CBCentral
    public let characteristic: CBCharacteristic
    public let offset = 0
    public var value: Data?
    init(central: CBCentral, characteristic: CBCharacteristic, value: Data?) {
        self.central = central
        self.characteristic = characteristic
        self.value = value
    }
}

// MARK: - Delegates (the optional methods have empty defaults, as @objc optionals)

public protocol CBCentralManagerDelegate: NSObjectProtocol {
    func centralManagerDidUpdateState(_ central: CBCentralManager)
    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber)
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral)
    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?)
    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?)
}
extension CBCentralManagerDelegate {
    public func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber
    ) {}
    public func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {}
    public func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?) {}
    public func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?)
    {}
}

public protocol CBPeripheralDelegate: NSObjectProtocol {
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?)
    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?)
    func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: (any Error)?)
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?)
    func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral)
    func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService])
}
extension CBPeripheralDelegate {
    public func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {}
    public func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {}
    public func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: (any Error)?
    ) {}
    public func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?) {}
    public func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) {}
    public func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {}
}

public protocol CBPeripheralManagerDelegate: NSObjectProtocol {
    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager)
    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?)
    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: (any Error)?)
    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic)
    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic)
    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest)
    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest])
    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager)
}
extension CBPeripheralManagerDelegate {
    public func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?) {}
    public func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: (any Error)?) {}
    public func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic
    ) {}
    public func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic
    ) {}
    public func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {}
    public func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {}
    public func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {}
}
