#if canImport(CoreBluetooth)
@preconcurrency import CoreBluetooth
import Dispatch
import Foundation
import NearbyGATT

/// The serial queue every CoreBluetooth callback of this adapter arrives on (both managers are
/// created with it) and the only place any CoreBluetooth object is touched.
///
/// `CBCentralManager`, `CBPeripheralManager`, `CBPeripheral`, `CBCentral`, `CBCharacteristic`
/// and `CBUUID` are not `Sendable`: they never leave this queue. The adapter's classes that hold
/// them are `@unchecked Sendable` for that reason only — every property holding one is read and
/// written on this queue (`dispatchPrecondition` checks it where it matters), and what crosses
/// to the session's threads is `Sendable` (bytes, strings, `GATTLink`). One queue for both
/// roles: a phone may browse (Nearby devices) and advertise (Receive) at once, and one queue
/// keeps their callbacks in one order.
let bluetoothQueue = DispatchQueue(label: "org.offlinewallet.bluetooth", qos: .userInitiated)

/// Time bounds of the adapter's own waits. CoreBluetooth bounds none of them: a connection
/// attempt never times out, a scan runs until stopped.
enum BluetoothTiming {
    /// How long a dial waits for Bluetooth to settle (the manager's first state update; the
    /// person answering the permission prompt on first use).
    static let powerOn: TimeInterval = 30
    /// How long one dial scans for the payee before `GATTLinkError.payeeNotFound`. The session
    /// dials again after a failure (up to its `maxReconnects`, within its `timeout`).
    static let scan: TimeInterval = 10
    /// Connecting, discovering the service and characteristics and subscribing, before the
    /// attempt is given up.
    static let setUp: TimeInterval = 10
    /// How long a dial waits for the previous connection to the same phone to finish
    /// disconnecting (a request fetch closes its link just before the payment dials).
    static let previousDisconnect: TimeInterval = 3
    /// A phone not heard for this long leaves the Nearby devices list. iOS advertises every
    /// few hundred milliseconds in the foreground; duplicates are reported while the list is
    /// open, so several seconds of silence means it went away (or stopped showing a request).
    static let quietPeriod: TimeInterval = 8
    /// How often the list looks for quiet phones.
    static let sweepInterval: TimeInterval = 2
}

extension GATTUUID {
    /// CoreBluetooth's form. `string` is canonical, so `CBUUID(string:)` (which raises on a
    /// malformed string) always takes it.
    var cbUUID: CBUUID { CBUUID(string: string) }
}

extension CBUUID {
    /// The profile's form; nil for a 16- or 32-bit UUID (no wallet UUID is one).
    var gattUUID: GATTUUID? { GATTUUID(string: uuidString) }
}

extension CBManagerState {
    /// The error that says what to do when Bluetooth cannot be used in this state; nil when it
    /// is on, and for the passing states (`.unknown` before the first update, `.resetting`)
    /// that the adapter waits out.
    var unusable: GATTLinkError? {
        switch self {
        case .poweredOn, .unknown, .resetting: nil
        case .poweredOff: .bluetoothOff
        case .unauthorized: .unauthorized
        case .unsupported: .unsupported
        @unknown default: .unsupported
        }
    }
}

/// Callbacks waiting for a manager to be usable (its first state update comes a moment after
/// it is created, and after the person answers the permission prompt). Each runs once, on the
/// Bluetooth queue, with nil once the manager is powered on or with the error that says why it
/// cannot be. The owner calls them after taking them out, never inside an access to this value:
/// a callback may start another wait.
struct PowerWaiters {
    private var waiting: [(GATTLinkError?) -> Void] = []

    mutating func add(_ body: @escaping (GATTLinkError?) -> Void) { waiting.append(body) }

    /// The callbacks to run now that the manager is in `state`: all of them when it is settled
    /// (on, or unusable), none while it is `.unknown` or `.resetting`.
    mutating func take(settledIn state: CBManagerState) -> [(GATTLinkError?) -> Void] {
        guard state == .poweredOn || state.unusable != nil else { return [] }
        defer { waiting = [] }
        return waiting
    }
}

/// One wait for a Bluetooth event, ended exactly once: by the event, by its time bound, by
/// the waiting task's cancellation, or by Bluetooth going away — whichever comes first; the
/// later ones find it finished and do nothing. Every method but `run` is called on
/// `bluetoothQueue`.
///
/// `@unchecked Sendable`: `continuation`, `outcome` and `cleanups` are touched only on
/// `bluetoothQueue` (the cancellation handler and the time bound hop onto it too).
final class BluetoothWait<Value: Sendable>: @unchecked Sendable {
    private var continuation: CheckedContinuation<Value, any Error>?
    private var outcome: Result<Value, any Error>?
    private var cleanups: [() -> Void] = []

    private init() {}

    /// Whether it has ended (the callbacks of a finished wait have nothing left to do).
    var isFinished: Bool {
        dispatchPrecondition(condition: .onQueue(bluetoothQueue))
        return outcome != nil
    }

    func succeed(_ value: Value) { finish(.success(value)) }
    func fail(_ error: any Error) { finish(.failure(error)) }

    /// Runs `cleanup` on the queue if the wait ends in failure (time bound, cancellation,
    /// error): stop the scan, cancel the connection attempt. At once if it already failed.
    func onFailure(_ cleanup: @escaping () -> Void) {
        dispatchPrecondition(condition: .onQueue(bluetoothQueue))
        switch outcome {
        case nil: cleanups.append(cleanup)
        case .failure?: cleanup()
        case .success?: break
        }
    }

    private func finish(_ result: Result<Value, any Error>) {
        dispatchPrecondition(condition: .onQueue(bluetoothQueue))
        guard outcome == nil else { return }
        outcome = result
        let waiting = continuation
        continuation = nil
        let pending = cleanups
        cleanups = []
        waiting?.resume(with: result)
        if case .failure = result { for cleanup in pending { cleanup() } }
    }

    private func install(_ waiting: CheckedContinuation<Value, any Error>) {
        if let outcome {
            // Cancelled before it started.
            waiting.resume(with: outcome)
        } else {
            continuation = waiting
        }
    }

    /// Runs `body` on the Bluetooth queue with a fresh wait and suspends until something
    /// finishes it. After `timeout` seconds it fails with `timeoutError` (unless finished);
    /// cancelling the calling task fails it with `CancellationError`. `body` is not run when
    /// the task was cancelled first.
    static func run(
        timeout: TimeInterval?, timeoutError: GATTLinkError, _ body: @escaping @Sendable (BluetoothWait<Value>) -> Void
    ) async throws -> Value {
        let wait = BluetoothWait<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                bluetoothQueue.async {
                    wait.install(continuation)
                    guard !wait.isFinished else { return }
                    if let timeout {
                        bluetoothQueue.asyncAfter(deadline: .now() + timeout) { wait.fail(timeoutError) }
                    }
                    body(wait)
                }
            }
        } onCancel: {
            bluetoothQueue.async { wait.fail(CancellationError()) }
        }
    }
}
#endif
