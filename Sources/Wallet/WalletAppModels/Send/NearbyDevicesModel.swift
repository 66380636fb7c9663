import Foundation
import NearbySession
import Observation
import OfflineNotes
import WalletFlows

/// The "Nearby devices" sheet: payees discovered nearby with their name and key id, and the
/// one to pay picked from them.
///
/// The advertisement is not the payee's screen: anyone nearby can advertise any name. So the
/// key-id rule the command line applies to `wallet pay HOST:PORT --payee KEYID`
/// (`NearbyPayFlow.payee(_:matchesText:)`: 8+ hex digits, a prefix of the key id) decides what
/// may be picked. After a request is scanned, only a device whose key id matches the request's
/// payee can be picked (the others are listed as not matching); without one, picking a device
/// fetches its request and keeps it only if it is for the key id the device advertised — the
/// key id the person reads on the payee's screen. Either way, the Send screen gets a Bluetooth
/// payment to that device, and its confirmation card shows the request's whole key id (16 hex
/// digits) to compare with the payee's screen before signing: the 8 digits a device advertises
/// are a prefix anyone can grind a key for in minutes.
@Observable
@MainActor
public final class NearbyDevicesModel {
    /// What the sheet shows.
    public enum State: Equatable, Sendable {
        /// Not searching (before `start()`, after `stop()`).
        case idle
        /// Searching; nothing found yet.
        case searching
        /// These devices are nearby, in the order they were found.
        case found([Device])
        /// Nothing found within the search timeout (the search goes on: a device that appears
        /// later is listed).
        case nothingFound
        /// Discovery failed (Bluetooth off, permission refused); the message says what to do.
        case failed(String)
    }

    /// How a device relates to the scanned request.
    public enum Match: Equatable, Sendable {
        /// No request scanned: picking it asks the device for its request.
        case noRequest
        /// Its key id matches the scanned request's payee.
        case matches
        /// Another key than the scanned request's payee (or no readable key id): not pickable.
        case notMatching
    }

    /// One row.
    public struct Device: Equatable, Sendable, Identifiable {
        public let peer: NearbyPeer
        public let match: Match

        public init(peer: NearbyPeer, match: Match) {
            self.peer = peer
            self.match = match
        }

        public var id: String { peer.address }
        /// The advertised name, or "Unnamed device".
        public var name: String { peer.name.isEmpty ? localized("nearby.unnamedDevice", "Unnamed device") : peer.name }
        /// "key 1a2b3c4d5e6f7a8b", as the payee's screen and the command line show it.
        public var keyText: String { localized("nearby.key", "key %@", peer.keyID) }
        public var isPickable: Bool { match != .notMatching }
        /// The line under a row that cannot be picked.
        public var mismatchText: String? {
            match == .notMatching
                ? localized("nearby.notPayee", "Not the payee of the scanned request: its key id does not match.") : nil
        }
    }

    /// Where picking a device is.
    public enum Pick: Equatable, Sendable {
        case none
        /// Asking the device for its request (no request was scanned).
        case fetchingRequest(NearbyPeer)
        /// The Send screen has a Bluetooth payment to this device.
        case handedToSend(NearbyPeer)
        /// Nothing was handed over; the message says why (nothing was signed).
        case failed(String)
    }

    /// Seconds of searching before "nothing found" shows.
    public let timeout: UInt64
    /// The scanned request the devices are matched against (nil: none scanned).
    public private(set) var request: PaymentRequest?
    public private(set) var pick: Pick = .none

    private enum Discovery: Equatable { case idle, searching, failed(String) }
    private var discovery: Discovery = .idle
    private var timedOut = false
    private var peers: [NearbyPeer] = []
    private let browser: any NearbyBrowser
    private let clock: any AppClock
    private var tasks: [Task<Void, Never>] = []
    /// Bumped by every start and stop, so a task of an earlier search cannot change this one.
    private var generation = 0

    public init(
        browser: any NearbyBrowser, clock: any AppClock = SystemClock(), timeout: UInt64 = 15, request: PaymentRequest? = nil
    ) {
        self.browser = browser
        self.clock = clock
        self.timeout = timeout
        self.request = request
    }

    // MARK: What the sheet shows

    public var state: State {
        switch discovery {
        case .idle: return .idle
        case .failed(let message): return .failed(message)
        case .searching:
            if !peers.isEmpty { return .found(devices) }
            return timedOut ? .nothingFound : .searching
        }
    }

    /// The devices found, matched against the scanned request.
    public var devices: [Device] {
        peers.map { peer in
            let match: Match =
                if let request { NearbyPayFlow.payee(request.payee, matchesText: peer.keyID) ? .matches : .notMatching } else {
                    .noRequest
                }
            return Device(peer: peer, match: match)
        }
    }

    // MARK: Searching

    /// The sheet appeared (or "Search again"): starts discovery and the timeout. Restarts a
    /// search that failed or timed out; does nothing while one runs.
    public func start() {
        if discovery == .searching && !timedOut { return }
        cancelTasks()
        generation += 1
        let current = generation
        discovery = .searching
        timedOut = false
        peers = []
        let events = browser.discover()
        tasks.append(
            Task { [weak self] in
                for await event in events {
                    guard let self, self.generation == current else { return }
                    self.apply(event)
                }
            })
        let deadline = clock.now() + timeout
        let clock = self.clock
        tasks.append(
            Task { [weak self] in
                do { try await clock.sleep(until: deadline) } catch { return }
                guard let self, self.generation == current, self.discovery == .searching else { return }
                self.timedOut = true
            })
    }

    /// The sheet closed: discovery stops and the list is cleared.
    public func stop() {
        cancelTasks()
        generation += 1
        discovery = .idle
        timedOut = false
        peers = []
        pick = .none
    }

    /// A request was scanned (nil: forget it): the devices are matched against its payee.
    public func useRequest(_ request: PaymentRequest?) {
        self.request = request
        pick = .none
    }

    private func apply(_ event: NearbyBrowserEvent) {
        switch event {
        case .found(let peer):
            if let i = peers.firstIndex(where: { $0.address == peer.address }) { peers[i] = peer } else { peers.append(peer) }
        case .lost(let address):
            peers.removeAll { $0.address == address }
        case .failed(let message):
            cancelTasks()
            peers = []
            discovery = .failed(message)
        }
    }

    private func cancelTasks() {
        for task in tasks { task.cancel() }
        tasks = []
    }

    // MARK: Picking

    /// A tap on a device: hands `send` a Bluetooth payment to it (the scanned request, or the
    /// one fetched from the device and checked against its key id). Returns whether it did;
    /// otherwise `pick` says why and nothing was signed.
    @discardableResult
    public func pick(_ device: Device, into send: SendModel) async -> Bool {
        if case .fetchingRequest = pick { return false }
        guard device.isPickable else {
            pick = .failed(
                localized(
                    "nearby.pickedNotPayee",
                    "%1$@ (%2$@) is not the payee of the scanned request. Pick the device whose key id the payee's screen shows.",
                    device.name, device.keyText))
            return false
        }
        guard !send.phase.isBusy else {
            pick = .failed(
                localized("nearby.paymentUnderWay", "A payment is under way on the Send screen. Wait for it to finish."))
            return false
        }
        let dialer = browser.dialer(for: device.peer)
        let payable: PaymentRequest
        if let request {
            payable = request
        } else {
            pick = .fetchingRequest(device.peer)
            do {
                payable = try await NearbyPayFlow.fetchRequest(
                    from: dialer, payee: device.peer.keyID, timeout: (send.services?.sessionOptions ?? SessionOptions()).timeout)
            } catch {
                pick = .failed(
                    localized(
                        "nearby.noUsableRequest", "%1$@ did not give a usable request: %2$@", device.name,
                        ErrorText.message(error)))
                return false
            }
        }
        guard payable.sessionKey != nil else {
            pick = .failed(
                localized(
                    "nearby.noSession", "This request cannot be paid over Bluetooth (it offers no nearby session). Pay it by QR.")
            )
            return false
        }
        send.payNearby(payable, peer: device.peer, dialer: dialer)
        pick = .handedToSend(device.peer)
        return true
    }
}
