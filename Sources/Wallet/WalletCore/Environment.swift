import Crypto
import Foundation
import OfflineNotes

/// A named step inside a value-moving operation, where tests inject a crash.
public enum FailurePoint: String, Sendable, CaseIterable {
    /// Pay: inputs chosen, nothing signed.
    case paySelected
    /// Pay: transfers signed in memory, nothing written.
    case paySigned
    /// Pay: everything written, transaction not yet committed.
    case payBeforeCommit
    /// Pay: committed, bytes not yet returned to the caller.
    case payAfterCommit
    /// Receive: verified and written, not yet committed.
    case receiveBeforeCommit
}

/// What the engine takes from the outside world, injected so tests control it.
public struct WalletEnvironment: Sendable {
    public var now: @Sendable () -> Timestamp
    public var randomBytes: @Sendable (Int) -> [UInt8]
    /// Called at each `FailurePoint`; throwing there simulates a crash at that step.
    public var failpoint: @Sendable (FailurePoint) throws -> Void
    /// Notes expiring within this many seconds are not used to pay: the payee's clock may run ahead.
    public var expiryMargin: UInt64

    public init(
        now: @escaping @Sendable () -> Timestamp = { Timestamp(Date().timeIntervalSince1970) },
        randomBytes: @escaping @Sendable (Int) -> [UInt8] = { count in
            var g = SystemRandomNumberGenerator()
            return (0..<count).map { _ in UInt8.random(in: 0...255, using: &g) }
        },
        failpoint: @escaping @Sendable (FailurePoint) throws -> Void = { _ in },
        expiryMargin: UInt64 = 300
    ) {
        self.now = now
        self.randomBytes = randomBytes
        self.failpoint = failpoint
        self.expiryMargin = expiryMargin
    }

    public static let live = WalletEnvironment()

    func nonce() -> Nonce { Nonce(uncheckedBytes: randomBytes(Nonce.byteCount)) }
}
