#if canImport(CoreBluetooth)
@preconcurrency import CoreBluetooth
import Dispatch
import Foundation
import NearbyGATT
import NearbySession
import WalletAppModels

/// The payee's side of Bluetooth LE (the peripheral), over one `CBPeripheralManager`.
///
/// While the Receive screen shows a request, its session service (a fresh UUID per request,
/// carried in the request's Bluetooth hint) is published with the `inbox` characteristic
/// (payer → payee, write without response) and the `outbox` one (payee → payer, notify), and
/// advertised with the discovery service and the local name "<key id> <name>". Each payer
/// that subscribes to `outbox` becomes a `GATTLink` of the request's `GATTListener`; its writes
/// on `inbox`, the manager's readiness to notify, and its unsubscribing are routed to that
/// link. Closing the listener stops advertising and removes the service.
///
/// Advertising: iOS takes only the local name and service UUIDs; what does not fit the 31-byte
/// packet goes to the scan response (the name) or Apple's "overflow" area (a second 128-bit
/// UUID), which another iPhone scanning for that UUID still reads. The session service is
/// listed first so it is the one in the packet itself. In the background iOS drops the name
/// and moves every UUID to the overflow area: a payer dialing a scanned request still finds
/// the phone; the Nearby devices list does not (it needs the name).
///
/// No state restoration (`CBPeripheralManagerOptionRestoreIdentifierKey`): a relaunched app
/// has lost the request's ephemeral session key with the rest of memory, so a restored
/// advertisement would only invite payers to a session nobody can answer. The
/// `bluetooth-peripheral` background mode keeps serving while the screen is locked.
final class BluetoothAdvertiser: NSObject, @unchecked Sendable {
    // @unchecked: every stored property below is touched only on `bluetoothQueue` (see
    // bluetoothQueue's comment); the methods called from elsewhere hop onto it.

    private var manager: CBPeripheralManager?
    private var power = PowerWaiters()
    /// The request being served (one Receive screen at a time).
    private var current: Advertisement?

    override init() {
        super.init()
    }

    /// A fresh session service for the next request; its hint
    /// (`GATTProfile.hint(for:)`) goes into the request, then `listen` serves it.
    func makeSessionService() -> GATTUUID { GATTProfile.makeSessionService() }

    /// Publishes `service` and advertises it with `localName` (`GATTProfile.localName`) until
    /// the returned listener closes. A request served before is replaced (its listener
    /// closes). Throws `GATTLinkError` when Bluetooth is off, not allowed or missing, or the
    /// system refuses the service or the advertisement.
    func listen(service: GATTUUID, localName: String) async throws -> GATTListener {
        let listener = GATTListener(onClose: { [weak self] in
            guard let self else { return }
            bluetoothQueue.async { self.stop(service) }
        })
        do {
            // The bound covers the permission prompt of the first use, then adding the
            // service and starting to advertise (each answered in well under a second).
            try await BluetoothWait<Void>.run(
                timeout: BluetoothTiming.powerOn,
                timeoutError: .disconnected("Bluetooth did not start advertising this request")
            ) { wait in
                wait.onFailure { self.stop(service) }
                self.whenPoweredOn { error in
                    guard !wait.isFinished else { return }
                    if let error { return wait.fail(error) }
                    self.start(Advertisement(service: service, localName: localName, listener: listener, started: wait))
                }
            }
        } catch {
            listener.close()
            throw error
        }
        return listener
    }

    // MARK: The manager (Bluetooth queue)

    /// The manager's state, created if needed. On first use the state is `.unknown` until
    /// the system reports it (at once when Bluetooth permission was given before; after the
    /// person answers the prompt otherwise): waits up to `seconds` for that report.
    private func settledState(waiting seconds: TimeInterval) -> CBManagerState {
        let reported = DispatchSemaphore(value: 0)
        let state: CBManagerState = bluetoothQueue.sync {
            let state = self.peripheralManager().state
            if state == .unknown || state == .resetting { self.power.add { _ in reported.signal() } }
            return state
        }
        guard state == .unknown || state == .resetting else { return state }
        _ = reported.wait(timeout: .now() + seconds)
        return bluetoothQueue.sync { self.peripheralManager().state }
    }

    /// Created on first use: creating it asks for Bluetooth permission, which belongs to the
    /// first request shown, not to the launch.
    private func peripheralManager() -> CBPeripheralManager {
        dispatchPrecondition(condition: .onQueue(bluetoothQueue))
        if let manager { return manager }
        // No system "turn on Bluetooth" alert: the screens say it, next to the QR code.
        let made = CBPeripheralManager(
            delegate: self, queue: bluetoothQueue, options: [CBPeripheralManagerOptionShowPowerAlertKey: false])
        manager = made
        return made
    }

    private func whenPoweredOn(_ body: @escaping (GATTLinkError?) -> Void) {
        let state = peripheralManager().state
        if state == .poweredOn { return body(nil) }
        if let error = state.unusable { return body(error) }
        power.add(body)
    }

    // MARK: Serving (Bluetooth queue)

    /// Replaces whatever was served with `advertisement` and publishes it.
    private func start(_ advertisement: Advertisement) {
        if let previous = current {
            current = nil
            unpublish(previous)
            previous.listener.close()
        }
        current = advertisement
        publish(advertisement)
    }

    /// Adds the service; `didAdd` then starts advertising. Also after Bluetooth comes back on
    /// (the system cleared the services when it went off).
    private func publish(_ advertisement: Advertisement) {
        guard let manager, manager.state == .poweredOn else { return }
        let inbox = CBMutableCharacteristic(
            type: GATTProfile.inboxCharacteristic.cbUUID, properties: [.writeWithoutResponse], value: nil,
            permissions: [.writeable])
        let outbox = CBMutableCharacteristic(
            type: GATTProfile.outboxCharacteristic.cbUUID, properties: [.notify], value: nil, permissions: [.readable])
        let service = CBMutableService(type: advertisement.service.cbUUID, primary: true)
        service.characteristics = [inbox, outbox]
        advertisement.published = service
        advertisement.inbox = inbox
        advertisement.outbox = outbox
        advertisement.phase = .adding
        manager.add(service)
    }

    /// Stops advertising and removes the service; its payers' links end.
    private func unpublish(_ advertisement: Advertisement) {
        for (central, link) in advertisement.centrals {
            link.port?.connectionEnded()
            advertisement.listener.disconnected(central: central.uuidString, reason: "the payee stopped listening")
        }
        advertisement.centrals = [:]
        if let manager, manager.state == .poweredOn {
            if advertisement.phase == .advertising || advertisement.phase == .startingAdvertising { manager.stopAdvertising() }
            if let service = advertisement.published { manager.remove(service) }
        }
        advertisement.published = nil
        advertisement.phase = .idle
    }

    /// The listener of `service` closed (or its start failed): stop serving it.
    private func stop(_ service: GATTUUID) {
        guard let advertisement = current, advertisement.service == service else { return }
        current = nil
        unpublish(advertisement)
    }

    /// The advertisement `characteristic` belongs to, when it is the current one's `uuid`
    /// characteristic (a late callback about a replaced request's service is ignored).
    private func serving(_ characteristic: CBCharacteristic, is uuid: GATTUUID) -> Advertisement? {
        guard let advertisement = current, characteristic.uuid.gattUUID == uuid else { return nil }
        if let service = characteristic.service, service.uuid.gattUUID != advertisement.service { return nil }
        return advertisement
    }

    /// A payer's link asks to be dropped (its session closed it). CBPeripheralManager cannot
    /// disconnect a central: this side stops serving it (its link ends; its writes are
    /// ignored), and the payer's phone, done with the link too, disconnects.
    fileprivate func forget(_ link: PeripheralLink) {
        guard let advertisement = current, advertisement.centrals[link.central.identifier] === link else { return }
        advertisement.centrals[link.central.identifier] = nil
        link.port?.connectionEnded()
        advertisement.listener.disconnected(central: link.central.identifier.uuidString, reason: "closed by this phone")
    }

    /// One notification to `link`'s central; false when the manager's transmit queue is full
    /// (`peripheralManagerIsReady(toUpdateSubscribers:)` follows).
    fileprivate func notify(_ packet: [UInt8], to link: PeripheralLink) -> Bool {
        guard let manager, let outbox = current?.outbox, current?.centrals[link.central.identifier] === link else {
            // Not served any more: swallowed (the link has ended already).
            return true
        }
        return manager.updateValue(Data(packet), for: outbox, onSubscribedCentrals: [link.central])
    }

    fileprivate func readyToSend(_ link: PeripheralLink) {
        // `sendingLink`: a link the listener's close() left handing over its last frames needs
        // the readiness too, or it never drains.
        current?.listener.sendingLink(for: link.central.identifier.uuidString)?.readyToSend()
    }
}

// MARK: - NearbyAdvertiser

extension BluetoothAdvertiser: NearbyAdvertiser {
    /// The Receive screen's endpoint for one new request: a fresh session service in the
    /// request's Bluetooth hint, and its listener. Throws `GATTLinkError` when Bluetooth is off,
    /// not allowed or missing (the request is then QR only and the screen shows the error's
    /// words). Advertising starts on the Bluetooth queue right after; if Bluetooth has not
    /// reported its state yet (the permission prompt is still up), it starts once it is on.
    ///
    /// Called on the main actor: it waits for the Bluetooth queue briefly (the queue never
    /// waits for the main thread), and at most half a second for the manager's first state.
    func prepareReceive(keyID: String, payeeName: String) throws -> NearbyEndpoint {
        let state = settledState(waiting: 0.5)
        if let error = state.unusable { throw error }
        let service = makeSessionService()
        // A key id the name cannot carry (never the wallet's own) still serves a scanned
        // request; only the Nearby devices list would not show this phone.
        let localName = GATTProfile.localName(keyIDHex: keyID, displayName: payeeName) ?? ""
        let listener = GATTListener(onClose: { [weak self] in
            guard let self else { return }
            bluetoothQueue.async { self.stop(service) }
        })
        bluetoothQueue.async {
            self.whenPoweredOn { error in
                guard error == nil, !listener.isClosed else { return }
                self.start(Advertisement(service: service, localName: localName, listener: listener, started: nil))
            }
        }
        return NearbyEndpoint(hints: [GATTProfile.hint(for: service)], listener: listener)
    }
}

// MARK: - CBPeripheralManagerDelegate

extension BluetoothAdvertiser: CBPeripheralManagerDelegate {
    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        let state = peripheral.state
        if state != .poweredOn, let advertisement = current {
            // Advertising stopped, the services are gone and every payer disconnected. The
            // listener stays open: the payers' sessions resume once Bluetooth is back.
            let reason = (state.unusable ?? .disconnected("Bluetooth restarted")).description
            advertisement.started?.fail(state.unusable ?? GATTLinkError.disconnected("Bluetooth restarted"))
            advertisement.started = nil
            for (central, link) in advertisement.centrals {
                link.port?.connectionEnded()
                advertisement.listener.disconnected(central: central.uuidString, reason: reason)
            }
            advertisement.centrals = [:]
            advertisement.published = nil
            advertisement.phase = .idle
        }
        if state == .poweredOn, let advertisement = current, advertisement.phase == .idle {
            // Back on while the request is still shown: serve it again. The system lost the
            // services; remove any it kept so the service is not there twice.
            peripheral.removeAllServices()
            publish(advertisement)
        }
        for body in power.take(settledIn: state) { body(state.unusable) }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?) {
        guard let advertisement = current, advertisement.phase == .adding, service.uuid.gattUUID == advertisement.service
        else { return }
        if let error {
            refused(advertisement, "the request's Bluetooth service was refused: \(error.localizedDescription)")
            return
        }
        advertisement.phase = .startingAdvertising
        // The session service first: it is the one the payer of a scanned request looks for,
        // and the first UUID is the one that fits the advertising packet.
        peripheral.startAdvertising([
            CBAdvertisementDataServiceUUIDsKey: [advertisement.service.cbUUID, GATTProfile.discoveryService.cbUUID],
            CBAdvertisementDataLocalNameKey: advertisement.localName,
        ])
    }

    /// The system refused the service or the advertisement: `listen` throws; a Receive screen's
    /// listener (`prepareReceive`) closes, so the screen stops waiting for a payer (the QR code
    /// still works) instead of waiting for one who cannot find it.
    private func refused(_ advertisement: Advertisement, _ reason: String) {
        if let started = advertisement.started {
            advertisement.started = nil
            started.fail(GATTLinkError.disconnected(reason))
        } else {
            stop(advertisement.service)
            advertisement.listener.close()
        }
    }

    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: (any Error)?) {
        guard let advertisement = current, advertisement.phase == .startingAdvertising else { return }
        if let error {
            refused(advertisement, "advertising the request failed: \(error.localizedDescription)")
            return
        }
        advertisement.phase = .advertising
        advertisement.started?.succeed(())
        advertisement.started = nil
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic)
    {
        guard let advertisement = serving(characteristic, is: GATTProfile.outboxCharacteristic) else { return }
        let link = PeripheralLink(advertiser: self, central: central)
        // The central's notification size is known from its subscription on: ATT MTU − 3.
        let port = BluetoothPort(maximumPacketLength: central.maximumUpdateValueLength, radio: link)
        link.port = port
        // A payer subscribing again (a resume) replaces its old link; the listener ends it.
        if let old = advertisement.centrals[central.identifier] { old.port?.connectionEnded() }
        guard advertisement.listener.accept(port, central: central.identifier.uuidString) != nil else {
            advertisement.centrals[central.identifier] = nil
            return
        }
        advertisement.centrals[central.identifier] = link
    }

    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic
    ) {
        // iOS reports a payer that disconnected or went out of range this way (there is no
        // disconnect callback on this side).
        guard let advertisement = serving(characteristic, is: GATTProfile.outboxCharacteristic),
            let link = advertisement.centrals.removeValue(forKey: central.identifier)
        else { return }
        link.port?.connectionEnded()
        advertisement.listener.disconnected(central: central.identifier.uuidString, reason: "the payer's phone disconnected")
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        // Writes without response: no `respond(to:withResult:)` (it is for requests that
        // expect an answer; `inbox` allows no other kind of write).
        for request in requests {
            guard let advertisement = serving(request.characteristic, is: GATTProfile.inboxCharacteristic),
                advertisement.centrals[request.central.identifier] != nil, let value = request.value
            else { continue }
            advertisement.listener.received(Array(value), from: request.central.identifier.uuidString)
        }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        // Every read must be answered exactly once. Frames come as notifications; there is
        // nothing to read.
        peripheral.respond(to: request, withResult: .readNotPermitted)
    }

    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {
        // One transmit queue for every central: each payer's waiting packets try again.
        guard let advertisement = current else { return }
        for link in advertisement.centrals.values { link.port?.drain() }
    }
}

// MARK: - What is served

/// The request being served: its service, the characteristics published, the payers
/// subscribed, and the `listen` call waiting for the advertising to start. Touched only on
/// `bluetoothQueue`.
private final class Advertisement {
    enum Phase { case idle, adding, startingAdvertising, advertising }

    let service: GATTUUID
    let localName: String
    let listener: GATTListener
    /// The `listen` call, until advertising started (or failed).
    var started: BluetoothWait<Void>?
    var phase = Phase.idle
    var published: CBMutableService?
    var inbox: CBMutableCharacteristic?
    var outbox: CBMutableCharacteristic?
    /// Payers subscribed to `outbox`, by central identifier.
    var centrals: [UUID: PeripheralLink] = [:]

    init(service: GATTUUID, localName: String, listener: GATTListener, started: BluetoothWait<Void>?) {
        self.service = service
        self.localName = localName
        self.listener = listener
        self.started = started
    }
}

/// One subscribed payer: the radio end of its `GATTLink`. Touched only on `bluetoothQueue`.
private final class PeripheralLink: BluetoothRadioEnd {
    unowned let advertiser: BluetoothAdvertiser
    let central: CBCentral
    var port: BluetoothPort?

    init(advertiser: BluetoothAdvertiser, central: CBCentral) {
        self.advertiser = advertiser
        self.central = central
    }

    func write(_ packet: [UInt8]) -> Bool { advertiser.notify(packet, to: self) }
    func linkHasRoom() { advertiser.readyToSend(self) }
    func drop() { advertiser.forget(self) }
}
#endif
