import DevIssuer
import Foundation
import OfflineNotes
import TestSupport
import Testing
import WalletCore

/// Real wallets in a temporary directory, trusting one dev issuer.
final class WalletHarness: @unchecked Sendable {
    static let start: Timestamp = 1_800_000_000
    let root: String
    let clock = TestClock(WalletHarness.start).settable
    let issuer: DevIssuer
    let eur = Currency("EUR")!

    init(maxHops: Int = 8, maxOfflineHolding: UInt64 = 10_000_000) throws {
        root = NSTemporaryDirectory() + "wallet-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        issuer = try DevIssuer(
            currency: Currency("EUR")!, now: WalletHarness.start, maxHops: maxHops, maxOfflineHolding: maxOfflineHolding)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    func environment(failpoint: @escaping @Sendable (FailurePoint) throws -> Void = { _ in }) -> WalletEnvironment {
        let clock = self.clock
        return WalletEnvironment(now: { clock.now }, failpoint: failpoint)
    }

    func path(_ name: String) -> String { root + "/" + name }

    func wallet(
        _ name: String, funds: [UInt64] = [], failpoint: @escaping @Sendable (FailurePoint) throws -> Void = { _ in }
    )
        throws -> Wallet
    {
        let w = try Wallet.create(directory: path(name), keyCost: .testing, environment: environment(failpoint: failpoint))
        try w.installTrust(authority: issuer.authority.publicKey, keyset: issuer.keyset.encoded, limits: issuer.limits.encoded)
        if !funds.isEmpty { try fund(w, funds) }
        return w
    }

    func reopen(_ name: String, failpoint: @escaping @Sendable (FailurePoint) throws -> Void = { _ in }) throws -> Wallet {
        try Wallet.open(directory: path(name), environment: environment(failpoint: failpoint))
    }

    func fund(_ w: Wallet, _ amounts: [UInt64]) throws {
        try w.deposit(amounts.map { try issuer.issue($0, to: w.publicKey, now: clock.now) })
    }

    /// payee requests, payer pays, payee receives, payer confirms.
    @discardableResult
    func transfer(_ amount: UInt64, from payer: Wallet, to payee: Wallet) throws -> (OutgoingPayment, ReceivedPayment) {
        let request = try payee.createRequest(amount: amount, payeeName: "payee")
        let sent = try payer.pay(request)
        let got = try payee.receive(sent.bundle, for: request.nonce)
        let done = try payer.confirm(receipt: got.receipt.encoded)
        return (done, got)
    }
}

/// Injects one failure at `point`, then lets everything through.
final class OneShotFailure: @unchecked Sendable {
    struct Crash: Error {}
    private let lock = NSLock()
    private var armed = true
    let point: FailurePoint
    init(_ point: FailurePoint) { self.point = point }
    func hit(_ p: FailurePoint) throws {
        try lock.withLock {
            if armed && p == point {
                armed = false
                throw Crash()
            }
        }
    }
}

/// The wallet error thrown by `body`, or nil; any other error is a test issue.
func walletError<T>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T) -> WalletError? {
    caught(WalletError.self, sourceLocation: sourceLocation, body)
}
