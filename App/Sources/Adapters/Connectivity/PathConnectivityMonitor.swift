#if canImport(Network)
import Dispatch
import Network
import WalletAppModels

/// Online / offline from the Network framework's path monitor: online when the system has a
/// usable route (`.satisfied`), whatever the interface. Each `updates()` call runs its own
/// `NWPathMonitor` (a monitor cannot be restarted once cancelled), cancelled when the caller
/// stops iterating.
///
/// "Online" means a route exists, not that the issuer answers: a sync started by a return
/// online may still fail, and `AppModel` reports that on the home screen.
struct PathConnectivityMonitor: ConnectivityMonitor {
    func updates() -> AsyncStream<Connectivity> {
        AsyncStream { continuation in
            let box = MonitorBox()
            box.monitor.pathUpdateHandler = { path in
                // Always on `box.queue` (serial), so `last` needs no lock.
                let state: Connectivity = path.status == .satisfied ? .online : .offline
                guard state != box.last else { return }
                box.last = state
                continuation.yield(state)
            }
            continuation.onTermination = { _ in box.monitor.cancel() }
            // The monitor reports the current path first, as the protocol asks.
            box.monitor.start(queue: box.queue)
        }
    }
}

/// The monitor, its queue and the last state sent. `@unchecked Sendable` because the closures
/// that capture it run on `queue` (the path handler: the only reader and writer of `last`) or
/// call `cancel()`, which NWPathMonitor allows from any thread.
private final class MonitorBox: @unchecked Sendable {
    let monitor = NWPathMonitor()
    let queue = DispatchQueue(label: "org.offlinewallet.connectivity")
    var last: Connectivity?
}
#endif
