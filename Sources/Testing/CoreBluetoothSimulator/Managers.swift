import Dispatch
import Foundation

// MARK: - Central

open class CBCentralManager: CBManager, @unchecked Sendable {
    // @unchecked: mutable state is guarded by the air's lock; delegate calls run on `queue`.
    open weak var delegate: (any CBCentralManagerDelegate)?
    private var scanFilter: Set<CBUUID>?
    private var scanTimer: (any DispatchSourceTimer)?
    /// One `CBPeripheral` per phone, as CoreBluetooth keeps them.
    private var known: [UUID: CBPeripheral] = [:]
    private var pending: Set<ObjectIdentifier> = []

    public init(delegate: (any CBCentralManagerDelegate)?, queue: DispatchQueue?, options: [String: Any]? = nil) {
        self.delegate = delegate
        super.init(queue: queue)
        air.locked { air.centrals.append(self) }
        let initial = air.conditions.initialState
        air.timerQueue.async { self.simulateState(initial) }
    }

    func deliver(_ body: @escaping @Sendable (any CBCentralManagerDelegate) -> Void) {
        queue.async {
            guard let delegate = self.delegate else { return }
            body(delegate)
        }
    }

    open override func simulateState(_ state: CBManagerState) {
        setState(state)
        if state != .poweredOn {
            let cut: [SimulatedLink] = air.locked {
                scanFilter = nil
                pending = []
                return air.links.filter { $0.centralManager === self }
            }
            scanTimer?.cancel()
            scanTimer = nil
            for link in cut { link.cut(error: SimulatedBluetoothError.poweredOff) }
        }
        deliver { $0.centralManagerDidUpdateState(self) }
    }

    open var isScanning: Bool { air.locked { scanFilter != nil } }

    open func scanForPeripherals(withServices serviceUUIDs: [CBUUID]?, options: [String: Any]? = nil) {
        guard !misuse() else { return }
        air.locked { scanFilter = Set(serviceUUIDs ?? []) }
        guard scanTimer == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: air.timerQueue)
        timer.schedule(deadline: .now(), repeating: air.conditions.advertisingInterval)
        timer.setEventHandler { [weak self] in self?.hearAdvertisements() }
        scanTimer = timer
        timer.resume()
    }

    open func stopScan() {
        air.locked { scanFilter = nil }
        scanTimer?.cancel()
        scanTimer = nil
    }

    private func peripheral(for device: UUID) -> CBPeripheral {
        air.locked {
            if let known = known[device] { return known }
            let made = CBPeripheral(identifier: device, air: air)
            known[device] = made
            return made
        }
    }

    /// One round of advertisements: every powered, in-range phone advertising a service the
    /// scan looks for (main or overflow area) is reported.
    private func hearAdvertisements() {
        let heard: [(UUID, [String: Any])] = air.locked {
            guard let filter = scanFilter, state == .poweredOn else { return [] }
            return air.peripherals.compactMap { manager in
                guard manager.state == .poweredOn, !air.outOfRange.contains(manager.deviceID),
                    let advertisement = manager.advertisement,
                    let services = advertisement[CBAdvertisementDataServiceUUIDsKey] as? [CBUUID],
                    filter.isEmpty || !filter.isDisjoint(with: services)
                else { return nil }
                // The first UUID fits the packet; the rest go to the overflow area; the name
                // comes in the scan response (merged into the same report here).
                var data: [String: Any] = [CBAdvertisementDataServiceUUIDsKey: Array(services.prefix(1))]
                if services.count > 1 { data[CBAdvertisementDataOverflowServiceUUIDsKey] = Array(services.dropFirst()) }
                if let name = advertisement[CBAdvertisementDataLocalNameKey] as? String {
                    var heard = name
                    if let budget = air.conditions.localNameBytes {
                        // Cut at a character boundary, as a shortened local name is.
                        while heard.utf8.count > budget { heard.removeLast() }
                    }
                    data[CBAdvertisementDataLocalNameKey] = heard
                }
                return (manager.deviceID, data)
            }
        }
        for (device, data) in heard {
            let peripheral = peripheral(for: device)
            let report = Advertisement(data: data)
            deliver {
                $0.centralManager(self, didDiscover: peripheral, advertisementData: report.data, rssi: NSNumber(value: -50))
            }
        }
    }

    open func retrievePeripherals(withIdentifiers identifiers: [UUID]) -> [CBPeripheral] {
        let devices = air.locked { Set(air.peripherals.map(\.deviceID)) }
        return identifiers.filter { devices.contains($0) }.map { peripheral(for: $0) }
    }

    /// Never times out: completes when the phone is (or comes) in range and powered.
    open func connect(_ peripheral: CBPeripheral, options: [String: Any]? = nil) {
        guard !misuse() else { return }
        air.locked { _ = pending.insert(ObjectIdentifier(peripheral)) }
        peripheral.setState(.connecting)
        attemptConnection(peripheral)
    }

    private func attemptConnection(_ peripheral: CBPeripheral) {
        air.timerQueue.asyncAfter(deadline: .now() + .milliseconds(5)) { [weak self] in
            guard let self else { return }
            let link: SimulatedLink?? = self.air.locked {
                guard self.pending.contains(ObjectIdentifier(peripheral)) else { return .some(nil) }
                guard let manager = self.air.peripherals.first(where: { $0.deviceID == peripheral.identifier }),
                    manager.state == .poweredOn, !self.air.outOfRange.contains(manager.deviceID)
                else { return nil }
                self.pending.remove(ObjectIdentifier(peripheral))
                let link = SimulatedLink(air: self.air, centralManager: self, peripheralManager: manager, peripheral: peripheral)
                self.air.links.append(link)
                self.air.counters.connections += 1
                return .some(link)
            }
            switch link {
            case .none: self.attemptConnection(peripheral)  // not there yet: keep trying
            case .some(.none): break  // cancelled
            case .some(.some):
                peripheral.setState(.connected)
                self.deliver { $0.centralManager(self, didConnect: peripheral) }
            }
        }
    }

    open func cancelPeripheralConnection(_ peripheral: CBPeripheral) {
        let wasPending = air.locked { pending.remove(ObjectIdentifier(peripheral)) != nil }
        if wasPending {
            peripheral.setState(.disconnected)
            return
        }
        guard let link = air.link(self, peripheral) else { return }
        let subscriptions: [CBMutableCharacteristic] = air.locked {
            link.alive = false
            air.links.removeAll { $0 === link }
            defer { link.subscribed = [] }
            return link.subscribed
        }
        peripheral.setState(.disconnected)
        deliver { $0.centralManager(self, didDisconnectPeripheral: peripheral, error: nil) }
        for characteristic in subscriptions {
            link.peripheralManager.deliver {
                $0.peripheralManager(link.peripheralManager, central: link.central, didUnsubscribeFrom: characteristic)
            }
        }
    }
}

// MARK: - A remote peripheral (central side)

open class CBPeripheral: CBPeer, @unchecked Sendable {
    // @unchecked: mutable state is guarded by the air's lock.
    open weak var delegate: (any CBPeripheralDelegate)?
    let air: SimulatedAir
    private var _state = CBPeripheralState.disconnected
    open internal(set) var services: [CBService]?

    init(identifier: UUID, air: SimulatedAir) {
        self.air = air
        super.init(identifier: identifier)
    }

    open var name: String? { nil }
    open var state: CBPeripheralState { air.locked { _state } }
    func setState(_ state: CBPeripheralState) { air.locked { _state = state } }

    private var link: SimulatedLink? {
        air.locked { air.links.first { $0.peripheral === self && $0.alive } }
    }

    private func deliver(_ link: SimulatedLink, _ body: @escaping @Sendable (any CBPeripheralDelegate) -> Void) {
        link.centralManager.queue.async {
            guard let delegate = self.delegate else { return }
            body(delegate)
        }
    }

    open var canSendWriteWithoutResponse: Bool {
        guard let link else { return false }
        return air.locked { link.writesInFlight < air.conditions.writeQueue }
    }

    open func maximumWriteValueLength(for type: CBCharacteristicWriteType) -> Int {
        type == .withoutResponse ? air.conditions.attMTU - 3 : 512
    }

    open func discoverServices(_ serviceUUIDs: [CBUUID]?) {
        guard let link else { return }
        let served = link.peripheralManager.published.filter { serviceUUIDs?.contains($0.uuid) ?? true }
        let mirrored: [CBService] = served.map { service in
            let copy = CBService(uuid: service.uuid)
            copy.peripheral = self
            return copy
        }
        air.locked { services = mirrored }
        deliver(link) { $0.peripheral(self, didDiscoverServices: nil) }
    }

    open func discoverCharacteristics(_ characteristicUUIDs: [CBUUID]?, for service: CBService) {
        guard let link, let served = link.peripheralManager.published.first(where: { $0.uuid == service.uuid }) else { return }
        let mirrored: [CBCharacteristic] = (served.characteristics ?? []).compactMap { characteristic in
            guard let mutable = characteristic as? CBMutableCharacteristic,
                characteristicUUIDs?.contains(mutable.uuid) ?? true
            else { return nil }
            let copy = CBCharacteristic(uuid: mutable.uuid, properties: mutable.properties)
            copy.service = service
            copy.served = mutable
            return copy
        }
        air.locked { service.characteristics = mirrored }
        deliver(link) { $0.peripheral(self, didDiscoverCharacteristicsFor: service, error: nil) }
    }

    open func setNotifyValue(_ enabled: Bool, for characteristic: CBCharacteristic) {
        guard let link, let served = characteristic.served, served.properties.contains(.notify) else { return }
        air.locked {
            characteristic.isNotifying = enabled
            if enabled { link.subscribed.append(served) } else { link.subscribed.removeAll { $0 === served } }
        }
        let manager = link.peripheralManager
        manager.deliver {
            if enabled {
                $0.peripheralManager(manager, central: link.central, didSubscribeTo: served)
            } else {
                $0.peripheralManager(manager, central: link.central, didUnsubscribeFrom: served)
            }
        }
        deliver(link) { $0.peripheral(self, didUpdateNotificationStateFor: characteristic, error: nil) }
    }

    /// A write without response while the radio queue is full is lost, as CoreBluetooth may
    /// lose it: the adapter must check `canSendWriteWithoutResponse` first.
    open func writeValue(_ data: Data, for characteristic: CBCharacteristic, type: CBCharacteristicWriteType) {
        guard let link, let served = characteristic.served else { return }
        let accepted: Bool = air.locked {
            air.counters.writes += 1
            guard link.writesInFlight < air.conditions.writeQueue else {
                air.counters.droppedWrites += 1
                link.owesWriteReady = true
                return false
            }
            link.writesInFlight += 1
            // Full now: CoreBluetooth signals readiness once a write has left.
            if link.writesInFlight == air.conditions.writeQueue { link.owesWriteReady = true }
            return true
        }
        guard accepted else { return }
        let manager = link.peripheralManager
        let request = CBATTRequest(central: link.central, characteristic: served, value: data)
        manager.deliver { $0.peripheralManager(manager, didReceiveWrite: [request]) }
        air.crossed(link, bytes: data.count)
        // The packet leaves the radio a moment later: room again.
        air.timerQueue.asyncAfter(deadline: .now() + .milliseconds(1)) {
            let ready: Bool = self.air.locked {
                link.writesInFlight -= 1
                guard link.owesWriteReady, link.alive else { return false }
                link.owesWriteReady = false
                return true
            }
            if ready { self.deliver(link) { $0.peripheralIsReady(toSendWriteWithoutResponse: self) } }
        }
    }

    /// A notification arrives (from the peripheral manager).
    func notified(_ data: Data, on served: CBMutableCharacteristic, over link: SimulatedLink) {
        let target: CBCharacteristic? = air.locked {
            (services ?? []).lazy.compactMap { $0.characteristics?.first { $0.served === served } }.first
        }
        guard let target, target.isNotifying else { return }
        deliver(link) { delegate in
            self.air.locked { target.value = data }
            delegate.peripheral(self, didUpdateValueFor: target, error: nil)
        }
    }

    /// The service was removed by the peripheral manager.
    func invalidate(_ uuid: CBUUID, over link: SimulatedLink) {
        let gone: [CBService] = air.locked {
            let gone = (services ?? []).filter { $0.uuid == uuid }
            services?.removeAll { $0.uuid == uuid }
            return gone
        }
        guard !gone.isEmpty else { return }
        deliver(link) { $0.peripheral(self, didModifyServices: gone) }
    }
}

// MARK: - Peripheral

open class CBPeripheralManager: CBManager, @unchecked Sendable {
    // @unchecked: mutable state is guarded by the air's lock; delegate calls run on `queue`.
    open weak var delegate: (any CBPeripheralManagerDelegate)?
    private var services: [CBMutableService] = []
    private var advertising: [String: Any]?
    private var owesReady = false

    public init(delegate: (any CBPeripheralManagerDelegate)?, queue: DispatchQueue?, options: [String: Any]? = nil) {
        self.delegate = delegate
        super.init(queue: queue)
        air.locked { air.peripherals.append(self) }
        let initial = air.conditions.initialState
        air.timerQueue.async { self.simulateState(initial) }
    }

    var published: [CBMutableService] { air.locked { services } }
    var advertisement: [String: Any]? { advertising }  // read under the air's lock

    func deliver(_ body: @escaping @Sendable (any CBPeripheralManagerDelegate) -> Void) {
        queue.async {
            guard let delegate = self.delegate else { return }
            body(delegate)
        }
    }

    /// Off: advertising stops, the services are cleared, every central is disconnected (each
    /// heard as unsubscribing).
    open override func simulateState(_ state: CBManagerState) {
        setState(state)
        if state != .poweredOn {
            let cut: [SimulatedLink] = air.locked {
                advertising = nil
                services = []
                return air.links.filter { $0.peripheralManager === self }
            }
            for link in cut { link.cut(error: SimulatedBluetoothError.poweredOff) }
        }
        deliver { $0.peripheralManagerDidUpdateState(self) }
    }

    open var isAdvertising: Bool { air.locked { advertising != nil } }

    open func add(_ service: CBMutableService) {
        guard !misuse() else { return }
        air.locked {
            for characteristic in service.characteristics ?? [] { characteristic.service = service }
            services.append(service)
        }
        deliver { $0.peripheralManager(self, didAdd: service, error: nil) }
    }

    open func remove(_ service: CBMutableService) {
        let links: [SimulatedLink] = air.locked {
            services.removeAll { $0 === service }
            return air.links.filter { $0.peripheralManager === self }
        }
        for link in links { link.peripheral.invalidate(service.uuid, over: link) }
    }

    open func removeAllServices() {
        for service in published { remove(service) }
    }

    open func startAdvertising(_ advertisementData: [String: Any]?) {
        guard !misuse() else { return }
        air.locked { advertising = advertisementData ?? [:] }
        deliver { $0.peripheralManagerDidStartAdvertising(self, error: nil) }
    }

    open func stopAdvertising() { air.locked { advertising = nil } }

    open func updateValue(
        _ value: Data, for characteristic: CBMutableCharacteristic, onSubscribedCentrals centrals: [CBCentral]?
    ) -> Bool {
        let targets: [SimulatedLink]? = air.locked {
            let subscribed = air.links.filter { link in
                link.peripheralManager === self && link.alive && link.subscribed.contains { $0 === characteristic }
                    && (centrals?.contains { $0.identifier == link.central.identifier } ?? true)
            }
            guard subscribed.allSatisfy({ $0.notificationsInFlight < air.conditions.notifyQueue }) else {
                owesReady = true
                air.counters.refusedNotifications += 1
                return nil
            }
            for link in subscribed { link.notificationsInFlight += 1 }
            air.counters.notifications += 1
            return subscribed
        }
        guard let targets else { return false }
        for link in targets {
            link.peripheral.notified(value, on: characteristic, over: link)
            air.crossed(link, bytes: value.count)
            air.timerQueue.asyncAfter(deadline: .now() + .milliseconds(1)) {
                let ready: Bool = self.air.locked {
                    link.notificationsInFlight -= 1
                    guard self.owesReady else { return false }
                    self.owesReady = false
                    return true
                }
                if ready { self.deliver { $0.peripheralManagerIsReady(toUpdateSubscribers: self) } }
            }
        }
        return true
    }

    open func respond(to request: CBATTRequest, withResult result: CBATTError.Code) {}
}

/// An advertisement report on its way to the central's queue (CBUUIDs and strings, never
/// mutated).
private struct Advertisement: @unchecked Sendable {
    let data: [String: Any]
}
