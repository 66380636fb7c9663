#if canImport(CoreBluetooth)
@preconcurrency import CoreBluetooth
import Dispatch
import Foundation
import NearbyGATT
import NearbySession
import OfflineNotes
import WalletAppModels

/// The payer's side of Bluetooth LE (the central): the Nearby devices list (`discover()`) and
/// the links a payment runs on (`dialer(for:)`), over one `CBCentralManager`.
///
/// - Discovery scans for `GATTProfile.discoveryService`, which every wallet showing a request
///   advertises, and lists a phone whose advertised local name reads as
///   `GATTProfile.advertisedName` ("<key id> <name>", maybe cut short). Duplicates are reported while the
///   list is open, so a phone not heard for `BluetoothTiming.quietPeriod` is reported lost.
/// - A dial (one `LinkDialer.connect()`) finds the payee — by scanning for the request's
///   session service (its Bluetooth hint), or the phone picked from the list —, connects,
///   discovers the session service and its `inbox` / `outbox` characteristics, subscribes to
///   `outbox`, reads the negotiated packet length, and hands the session a `GATTLink`. The
///   session dials again after a drop and resumes.
/// - One scan serves everyone: CoreBluetooth keeps one scan per manager (a new
///   `scanForPeripherals` replaces the previous one's services), so the scan is always for the
///   union of what the list and the dials in flight look for.
///
/// Bluetooth off, not allowed or missing: discovery reports `.failed` with
/// `GATTLinkError`'s message, a dial throws that error (the session then fails the payment with
/// it, and the Send screen offers QR); links in use end as disconnected.
///
/// No state restoration (`CBCentralManagerOptionRestoreIdentifierKey`): what a link carries is
/// a nearby session held in memory (the ephemeral key, the stream positions), so a relaunched
/// app has no session to continue — the payment resumes from the wallet's stored bundle when
/// the person pays again. The `bluetooth-central` background mode (Info.plist) keeps a running
/// payment's link alive while the screen is locked; that needs no restoration.
final class BluetoothBrowser: NSObject, NearbyBrowser, @unchecked Sendable {
    // @unchecked: every stored property below is touched only on `bluetoothQueue` (see
    // bluetoothQueue's comment); the public methods hop onto it.

    /// A wallet phone heard advertising.
    private struct Heard {
        let peripheral: CBPeripheral
        /// The last local name heard (the scan response carrying it may come in a separate
        /// discovery event from the advertisement).
        var localName: String?
        /// The service UUIDs of its last advertisement that had any (main and overflow area):
        /// the discovery service and the session service of the request it shows now.
        var services: Set<GATTUUID> = []
        var lastHeard: ContinuousClock.Instant
        /// What discovery sessions were told about it (nil: not listed).
        var listed: NearbyPeer?
    }

    private var manager: CBCentralManager?
    private var power = PowerWaiters()
    /// Open discovery sessions (Nearby devices sheets), by token.
    private var sessions: [UUID: AsyncStream<NearbyBrowserEvent>.Continuation] = [:]
    private var heard: [UUID: Heard] = [:]
    /// Dials in flight, by their own id.
    private var attempts: [UUID: DialAttempt] = [:]
    /// Connections handed to a session as a link, by peripheral identifier.
    private var connections: [UUID: CentralConnection] = [:]
    /// The services the running scan is for (empty: not scanning).
    private var scanningFor: Set<GATTUUID> = []
    private var sweepTimer: (any DispatchSourceTimer)?

    override init() {
        super.init()
    }

    // MARK: NearbyBrowser

    func discover() -> AsyncStream<NearbyBrowserEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: NearbyBrowserEvent.self)
        let token = UUID()
        continuation.onTermination = { _ in
            bluetoothQueue.async { self.endDiscovery(token) }
        }
        bluetoothQueue.async { self.startDiscovery(token, continuation) }
        return stream
    }

    func dialer(for peer: NearbyPeer) -> any LinkDialer {
        guard let identifier = UUID(uuidString: peer.address) else {
            // Not an address this browser handed out: every dial says the phone is not there.
            return GATTDialer { throw GATTLinkError.payeeNotFound }
        }
        return GATTDialer { try await self.dial(.peer(identifier)) }
    }

    /// Links to the payee of `request`, found by the session service its Bluetooth hint names;
    /// nil when the request has no usable Bluetooth hint (pay it by QR).
    func dialer(for request: PaymentRequest) -> (any LinkDialer)? {
        guard let service = GATTProfile.sessionService(in: request) else { return nil }
        return GATTDialer { try await self.dial(.service(service)) }
    }

    // MARK: The manager (Bluetooth queue)

    /// The central manager, created on first use: creating it is what asks the person for
    /// Bluetooth permission, which should happen when they first pay or look for a payee, not
    /// at launch.
    private func centralManager() -> CBCentralManager {
        dispatchPrecondition(condition: .onQueue(bluetoothQueue))
        if let manager { return manager }
        // No system "turn on Bluetooth" alert: the screens say it, next to the QR fallback.
        let made = CBCentralManager(
            delegate: self, queue: bluetoothQueue, options: [CBCentralManagerOptionShowPowerAlertKey: false])
        manager = made
        return made
    }

    /// Runs `body` with nil once Bluetooth is on, or with the error saying why it cannot be.
    private func whenPoweredOn(_ body: @escaping (GATTLinkError?) -> Void) {
        let state = centralManager().state
        if state == .poweredOn { return body(nil) }
        if let error = state.unusable { return body(error) }
        power.add(body)
    }

    // MARK: Discovery (Bluetooth queue)

    private func startDiscovery(_ token: UUID, _ continuation: AsyncStream<NearbyBrowserEvent>.Continuation) {
        whenPoweredOn { error in
            if let error {
                continuation.yield(.failed(error.description))
                continuation.finish()
                return
            }
            self.sessions[token] = continuation
            let now = ContinuousClock.now
            for (_, phone) in self.heard where now - phone.lastHeard < .seconds(BluetoothTiming.quietPeriod) {
                if let peer = phone.listed { continuation.yield(.found(peer)) }
            }
            self.updateScan()
        }
    }

    private func endDiscovery(_ token: UUID) {
        guard sessions.removeValue(forKey: token) != nil else { return }
        if sessions.isEmpty {
            // Nobody sweeps the phones heard while no list is open: forget the quiet ones.
            let now = ContinuousClock.now
            heard = heard.filter { now - $0.value.lastHeard < .seconds(BluetoothTiming.quietPeriod) }
        }
        updateScan()
    }

    private func tell(_ event: NearbyBrowserEvent) {
        for continuation in sessions.values { continuation.yield(event) }
    }

    /// Scans for what the list and the scanning dials look for, or stops scanning.
    private func updateScan() {
        dispatchPrecondition(condition: .onQueue(bluetoothQueue))
        guard let manager, manager.state == .poweredOn else {
            scanningFor = []
            stopSweeping()
            return
        }
        var wanted: Set<GATTUUID> = []
        if !sessions.isEmpty { wanted.insert(GATTProfile.discoveryService) }
        for attempt in attempts.values {
            if case .scanning(let service) = attempt.phase { wanted.insert(service) }
        }
        if wanted.isEmpty {
            if manager.isScanning { manager.stopScan() }
            scanningFor = []
        } else if wanted != scanningFor || !manager.isScanning {
            // Duplicates on: the list needs every advertisement to tell a phone still there
            // from one gone (`quietPeriod`). Scans last only while a sheet is open or a dial
            // looks for its payee.
            manager.scanForPeripherals(
                withServices: wanted.map(\.cbUUID), options: [CBCentralManagerScanOptionAllowDuplicatesKey: true])
            scanningFor = wanted
        }
        if sessions.isEmpty { stopSweeping() } else { startSweeping() }
    }

    private func startSweeping() {
        guard sweepTimer == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: bluetoothQueue)
        timer.schedule(deadline: .now() + BluetoothTiming.sweepInterval, repeating: BluetoothTiming.sweepInterval)
        timer.setEventHandler { self.sweep() }
        sweepTimer = timer
        timer.resume()
    }

    private func stopSweeping() {
        sweepTimer?.cancel()
        sweepTimer = nil
    }

    /// Phones not heard for the quiet period leave the list.
    private func sweep() {
        let now = ContinuousClock.now
        for (identifier, phone) in heard where now - phone.lastHeard >= .seconds(BluetoothTiming.quietPeriod) {
            heard[identifier] = nil
            if let peer = phone.listed { tell(.lost(address: peer.address)) }
        }
    }

    /// A wallet's advertisement: remember the phone, list it if its name reads as a wallet's,
    /// and hand it to a dial scanning for one of its services.
    private func heardAdvertisement(_ peripheral: CBPeripheral, _ advertisement: [String: Any]) {
        let identifier = peripheral.identifier
        let advertised = (advertisement[CBAdvertisementDataServiceUUIDsKey] as? [CBUUID]) ?? []
        let overflow = (advertisement[CBAdvertisementDataOverflowServiceUUIDsKey] as? [CBUUID]) ?? []
        let services = Set((advertised + overflow).compactMap(\.gattUUID))
        var phone = heard[identifier] ?? Heard(peripheral: peripheral, lastHeard: .now)
        phone.lastHeard = .now
        // A scan response carries only the name; an advertisement, the services of the
        // request shown now (an older request's service is gone from the payee).
        if !services.isEmpty { phone.services = services }
        if let name = advertisement[CBAdvertisementDataLocalNameKey] as? String { phone.localName = name }

        let peer: NearbyPeer? = phone.localName.flatMap(GATTProfile.advertisedName).map {
            NearbyPeer(address: identifier.uuidString, name: $0.displayName, keyID: $0.keyID)
        }
        let wasListed = phone.listed
        phone.listed = peer
        heard[identifier] = phone
        if let peer, peer != wasListed {
            tell(.found(peer))
        } else if peer == nil, let old = wasListed {
            tell(.lost(address: old.address))
        }

        for attempt in attempts.values {
            guard case .scanning(let service) = attempt.phase, phone.services.contains(service) else { continue }
            connect(attempt, to: peripheral)
        }
    }

    // MARK: Dialing (Bluetooth queue, but `dial` itself)

    /// What a dial looks for.
    enum DialTarget {
        /// A phone advertising this session service (the request's Bluetooth hint).
        case service(GATTUUID)
        /// The phone picked from the Nearby devices list.
        case peer(UUID)
    }

    /// One `connect()` of a dialer: finds the payee, connects, subscribes, returns the link.
    private func dial(_ target: DialTarget) async throws -> GATTLink {
        try await BluetoothWait<GATTLink>.run(timeout: nil, timeoutError: .payeeNotFound) { wait in
            let attempt = DialAttempt(target: target, wait: wait)
            self.attempts[attempt.id] = attempt
            wait.onFailure { self.abandon(attempt) }
            // Until the manager's state settles (the first use also asks for permission).
            attempt.bound(BluetoothTiming.powerOn)
            self.whenPoweredOn { error in
                guard !wait.isFinished else { return }
                if let error { return wait.fail(error) }
                self.find(attempt)
            }
        }
    }

    /// Bluetooth is on: use the phone if it is known, otherwise scan for it.
    private func find(_ attempt: DialAttempt) {
        guard let manager else { return }
        switch attempt.target {
        case .peer(let identifier):
            // The sheet's own sighting, or the system's memory of that phone. Connecting to a
            // phone that is not in range never completes: the set-up bound ends it.
            guard
                let peripheral = heard[identifier]?.peripheral ?? manager.retrievePeripherals(withIdentifiers: [identifier]).first
            else { return attempt.wait.fail(GATTLinkError.payeeNotFound) }
            // The session service the phone advertises beside the discovery service, when it
            // was heard with exactly one; otherwise every service is looked at.
            let sessionServices = heard[identifier]?.services.subtracting([GATTProfile.discoveryService]) ?? []
            attempt.service = sessionServices.count == 1 ? sessionServices.first : nil
            connect(attempt, to: peripheral)
        case .service(let service):
            attempt.service = service
            let now = ContinuousClock.now
            if let phone = heard.values.first(where: {
                $0.services.contains(service) && now - $0.lastHeard < .seconds(BluetoothTiming.quietPeriod)
            }) {
                return connect(attempt, to: phone.peripheral)
            }
            attempt.phase = .scanning(service)
            attempt.bound(BluetoothTiming.scan)
            updateScan()
        }
    }

    /// Connects `attempt` to `peripheral` — after the previous connection to that phone has
    /// finished disconnecting (a fetched request's link closes just before the payment dials;
    /// a link the session gave up on may still be draining its last packets: it is cut).
    private func connect(_ attempt: DialAttempt, to peripheral: CBPeripheral) {
        guard !attempt.wait.isFinished, let manager else { return }
        attempt.peripheral = peripheral
        if let previous = connections[peripheral.identifier] {
            drop(previous)
            attempt.phase = .waitingForPrevious
            attempt.bound(BluetoothTiming.previousDisconnect + BluetoothTiming.setUp)
            previous.whenEnded { [weak self] in
                guard let self, !attempt.wait.isFinished else { return }
                self.connect(attempt, to: peripheral)
            }
            updateScan()
            return
        }
        attempt.phase = .connecting
        attempt.bound(BluetoothTiming.setUp)
        updateScan()
        peripheral.delegate = self
        manager.connect(peripheral, options: nil)
    }

    /// A failed or cancelled dial: stop scanning for it, cancel its connection attempt.
    private func abandon(_ attempt: DialAttempt) {
        attempts[attempt.id] = nil
        attempt.cancelBound()
        if let peripheral = attempt.peripheral, connections[peripheral.identifier] == nil,
            peripheral.state == .connecting || peripheral.state == .connected
        {
            manager?.cancelPeripheralConnection(peripheral)
        }
        updateScan()
    }

    /// The dial setting up a connection to `peripheral`, if any.
    private func settingUp(_ peripheral: CBPeripheral) -> DialAttempt? {
        attempts.values.first { attempt in
            attempt.peripheral?.identifier == peripheral.identifier
                && (attempt.phase == .connecting || attempt.phase == .discovering)
        }
    }

    /// Service discovery answered: discover the characteristics of the session service (or,
    /// when the service is not known, of every service: the one holding both wins).
    private func servicesDiscovered(_ attempt: DialAttempt, _ peripheral: CBPeripheral, error: (any Error)?) {
        if let error {
            return attempt.wait.fail(GATTLinkError.disconnected("service discovery failed: \(error.localizedDescription)"))
        }
        let candidates = (peripheral.services ?? []).filter { service in
            guard let uuid = service.uuid.gattUUID else { return false }
            return attempt.service.map { $0 == uuid } ?? true
        }
        guard !candidates.isEmpty else { return attempt.wait.fail(GATTLinkError.serviceNotFound) }
        attempt.servicesLeft = candidates.count
        let characteristics = [GATTProfile.inboxCharacteristic.cbUUID, GATTProfile.outboxCharacteristic.cbUUID]
        for service in candidates { peripheral.discoverCharacteristics(characteristics, for: service) }
    }

    /// One service's characteristics: the first service with both `inbox` and `outbox` is the
    /// session; subscribe to `outbox`.
    private func characteristicsDiscovered(_ attempt: DialAttempt, _ peripheral: CBPeripheral, _ service: CBService) {
        guard attempt.outbox == nil else { return }
        attempt.servicesLeft -= 1
        let found = service.characteristics ?? []
        let inbox = found.first { $0.uuid.gattUUID == GATTProfile.inboxCharacteristic }
        let outbox = found.first { $0.uuid.gattUUID == GATTProfile.outboxCharacteristic }
        if let inbox, let outbox, inbox.properties.contains(.writeWithoutResponse), outbox.properties.contains(.notify) {
            attempt.sessionService = service.uuid
            attempt.inbox = inbox
            attempt.outbox = outbox
            peripheral.setNotifyValue(true, for: outbox)
        } else if attempt.servicesLeft <= 0 {
            attempt.wait.fail(GATTLinkError.serviceNotFound)
        }
    }

    /// Subscribed to `outbox`: the connection is a link. The packet length is read now, after
    /// discovery: iOS negotiates the ATT MTU right after connecting, and reports the default
    /// 20 bytes until that exchange is done.
    private func subscribed(_ attempt: DialAttempt, _ peripheral: CBPeripheral) {
        guard let inbox = attempt.inbox, let outbox = attempt.outbox, let service = attempt.sessionService else { return }
        attempt.cancelBound()
        attempts[attempt.id] = nil
        let connection = CentralConnection(
            browser: self, peripheral: peripheral, service: service, inbox: inbox, outbox: outbox)
        let port = BluetoothPort(
            maximumPacketLength: peripheral.maximumWriteValueLength(for: .withoutResponse), radio: connection)
        let link = GATTLink(port: port)
        connection.port = port
        connection.link = link
        connections[peripheral.identifier] = connection
        updateScan()
        attempt.wait.succeed(link)
    }

    /// The link closed (the session is done with it): cancel the connection; the phone's
    /// disconnect callback ends the record.
    fileprivate func drop(_ connection: CentralConnection) {
        guard connections[connection.peripheral.identifier] === connection, !connection.isClosing else { return }
        connection.isClosing = true
        manager?.cancelPeripheralConnection(connection.peripheral)
    }

    /// The connection to `peripheral` is gone: its link hears why, dials waiting for it go on.
    private func ended(_ peripheral: CBPeripheral, reason: String) {
        if let attempt = settingUp(peripheral) {
            attempt.wait.fail(GATTLinkError.disconnected(reason))
        }
        guard let connection = connections.removeValue(forKey: peripheral.identifier) else { return }
        connection.end(reason: reason)
    }

    /// Bluetooth went off (or away): every link and dial fails with the reason, every list
    /// hears it; the phones heard are forgotten (CoreBluetooth invalidates its peripherals).
    private func lost(_ error: GATTLinkError) {
        for attempt in Array(attempts.values) { attempt.wait.fail(error) }
        for connection in connections.values { connection.end(reason: error.description) }
        connections = [:]
        heard = [:]
        for continuation in sessions.values {
            continuation.yield(.failed(error.description))
            continuation.finish()
        }
        sessions = [:]
        scanningFor = []
        stopSweeping()
    }
}

// MARK: - CBCentralManagerDelegate

extension BluetoothBrowser: CBCentralManagerDelegate {
    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        let state = central.state
        if state != .poweredOn {
            // `.resetting` and `.unknown` also end what runs: the system dropped the
            // connections; dials wait for the state to settle.
            lost(state.unusable ?? .disconnected("Bluetooth restarted"))
        }
        for body in power.take(settledIn: state) { body(state.unusable) }
        updateScan()
    }

    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi: NSNumber
    ) {
        heardAdvertisement(peripheral, advertisementData)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        guard let attempt = settingUp(peripheral), attempt.phase == .connecting else {
            // Nobody waits for it any more (the dial failed or was cancelled meanwhile).
            if connections[peripheral.identifier] == nil { central.cancelPeripheralConnection(peripheral) }
            return
        }
        attempt.phase = .discovering
        peripheral.delegate = self
        peripheral.discoverServices(attempt.service.map { [$0.cbUUID] })
    }

    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?) {
        ended(peripheral, reason: "could not connect: \(error?.localizedDescription ?? "no reason given")")
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?) {
        // An error means the link was lost (out of range, the payee's Bluetooth went off); none
        // means someone cancelled it (this side, after the session closed the link).
        if error != nil {
            // A lost link says nothing more about the services the phone advertised before: its
            // Bluetooth may have gone off, which clears them until its app publishes them again.
            // The session's next dial must hear the service advertised again (an event) rather
            // than connect at once to the old sighting and fail with `serviceNotFound` on every
            // reconnect while the payee's phone is still coming back.
            heard[peripheral.identifier]?.services = []
        }
        ended(peripheral, reason: error?.localizedDescription ?? "the connection was closed")
    }
}

// MARK: - CBPeripheralDelegate

extension BluetoothBrowser: CBPeripheralDelegate {
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        guard let attempt = settingUp(peripheral), attempt.phase == .discovering else { return }
        servicesDiscovered(attempt, peripheral, error: error)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        guard let attempt = settingUp(peripheral), attempt.phase == .discovering else { return }
        if let error {
            attempt.servicesLeft -= 1
            if attempt.servicesLeft <= 0, attempt.outbox == nil {
                attempt.wait.fail(GATTLinkError.disconnected("characteristic discovery failed: \(error.localizedDescription)"))
            }
            return
        }
        characteristicsDiscovered(attempt, peripheral, service)
    }

    func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: (any Error)?
    ) {
        guard let attempt = settingUp(peripheral), attempt.phase == .discovering,
            characteristic.uuid.gattUUID == GATTProfile.outboxCharacteristic
        else { return }
        if let error {
            return attempt.wait.fail(GATTLinkError.disconnected("could not subscribe: \(error.localizedDescription)"))
        }
        guard characteristic.isNotifying else {
            return attempt.wait.fail(GATTLinkError.disconnected("the payee's phone refused the subscription"))
        }
        subscribed(attempt, peripheral)
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?) {
        // A failed notification carries nothing usable; the session retransmits what is missing.
        guard error == nil, characteristic.uuid.gattUUID == GATTProfile.outboxCharacteristic,
            let connection = connections[peripheral.identifier], let value = characteristic.value
        else { return }
        connection.link?.received(Array(value))
    }

    func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) {
        connections[peripheral.identifier]?.port?.drain()
    }

    func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {
        // The payee removed its session service (its Receive screen closed or moved on to a
        // new request): nothing more will come on this connection.
        guard let connection = connections[peripheral.identifier],
            invalidatedServices.contains(where: { $0.uuid == connection.service })
        else { return }
        ended(peripheral, reason: "the payee's phone stopped offering this request")
        manager?.cancelPeripheralConnection(peripheral)
    }
}

// MARK: - One dial

/// One `connect()` in flight: where it is, what it found, and the bound on its current step.
/// `@unchecked Sendable`: touched only on `bluetoothQueue` (its time bound fires there too).
private final class DialAttempt: @unchecked Sendable {
    enum Phase: Equatable {
        case waitingForPower
        case scanning(GATTUUID)
        case waitingForPrevious
        case connecting
        case discovering
    }

    let id = UUID()
    let target: BluetoothBrowser.DialTarget
    let wait: BluetoothWait<GATTLink>
    var phase = Phase.waitingForPower
    var peripheral: CBPeripheral?
    /// The session service, when known (the request's hint, or advertised by the picked phone).
    var service: GATTUUID?
    /// Services whose characteristics are still being discovered.
    var servicesLeft = 0
    /// The service found holding `inbox` and `outbox`.
    var sessionService: CBUUID?
    var inbox: CBCharacteristic?
    var outbox: CBCharacteristic?
    private var timer: DispatchWorkItem?

    init(target: BluetoothBrowser.DialTarget, wait: BluetoothWait<GATTLink>) {
        self.target = target
        self.wait = wait
    }

    /// Fails the dial unless it moves on (a new bound) or ends within `seconds`; the error says
    /// what the step it was stuck in means.
    func bound(_ seconds: TimeInterval) {
        timer?.cancel()
        let item = DispatchWorkItem { [weak self] in self?.timedOut() }
        timer = item
        bluetoothQueue.asyncAfter(deadline: .now() + seconds, execute: item)
    }

    private func timedOut() {
        switch phase {
        case .waitingForPower:
            wait.fail(GATTLinkError.disconnected("Bluetooth did not become ready"))
        case .scanning, .waitingForPrevious, .connecting:
            // Not advertising nearby, or out of range: a connection attempt to a phone that
            // is not there never completes on its own.
            wait.fail(GATTLinkError.payeeNotFound)
        case .discovering:
            wait.fail(GATTLinkError.disconnected("the payee's phone did not finish setting up the connection in time"))
        }
    }

    func cancelBound() {
        timer?.cancel()
        timer = nil
    }
}

// MARK: - One connection

/// A connection handed to a session as a `GATTLink`: the phone, its `inbox` and `outbox`, and
/// the port the link writes through. Touched only on `bluetoothQueue`.
private final class CentralConnection: BluetoothRadioEnd {
    unowned let browser: BluetoothBrowser
    let peripheral: CBPeripheral
    /// The payee's session service (the request's).
    let service: CBUUID
    let inbox: CBCharacteristic
    let outbox: CBCharacteristic
    var port: BluetoothPort?
    var link: GATTLink?
    /// This side cancelled it; the disconnect callback has not come yet.
    var isClosing = false
    private var endWaiters: [() -> Void] = []

    init(browser: BluetoothBrowser, peripheral: CBPeripheral, service: CBUUID, inbox: CBCharacteristic, outbox: CBCharacteristic)
    {
        self.browser = browser
        self.peripheral = peripheral
        self.service = service
        self.inbox = inbox
        self.outbox = outbox
    }

    /// One frame as one write without response. CoreBluetooth may drop a write issued while
    /// `canSendWriteWithoutResponse` is false, so it is checked first; false waits for
    /// `peripheralIsReady(toSendWriteWithoutResponse:)`.
    func write(_ packet: [UInt8]) -> Bool {
        guard peripheral.state == .connected, peripheral.canSendWriteWithoutResponse else { return false }
        peripheral.writeValue(Data(packet), for: inbox, type: .withoutResponse)
        return true
    }

    func linkHasRoom() { link?.readyToSend() }

    func drop() { browser.drop(self) }

    /// Runs `body` once this connection has ended.
    func whenEnded(_ body: @escaping () -> Void) { endWaiters.append(body) }

    /// The connection is gone: the link hears why (a resume follows), waiting dials go on.
    func end(reason: String) {
        port?.connectionEnded()
        link?.disconnected(reason: reason)
        link = nil
        port = nil
        let waiting = endWaiters
        endWaiters = []
        for body in waiting { body() }
    }
}
#endif
