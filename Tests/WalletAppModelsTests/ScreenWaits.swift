import Foundation

/// Waits until `condition` holds on the main actor, checking every 20 ms, for at most
/// `seconds` (a liveness bound sized for a loaded machine, not a speed assertion).
/// Returns whether it held.
@MainActor
func untilTrue(within seconds: Double = 30, _ condition: @MainActor () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return true
}
