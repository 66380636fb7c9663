import DevIssuer
import Foundation
import NearbySession
import OfflineNotes
import WalletCore

/// A payer and a payee wallet trusting one in-process dev issuer (no server), the payer funded
/// with one note: the smallest real setup for offline payments in tests. Test support only.
public final class WalletPair: @unchecked Sendable {
    // @unchecked: every stored property is immutable and itself thread-safe (Wallet is Sendable).
    public let root = NSTemporaryDirectory() + "wallet-pair-" + UUID().uuidString
    public let issuer: DevIssuer
    public let payer: Wallet
    public let payee: Wallet

    /// - Parameter funds: the payer's one note, in minor units of EUR.
    public init(funds: UInt64 = 10_000) throws {
        let now = Timestamp(Date().timeIntervalSince1970)
        issuer = try DevIssuer(currency: Currency("EUR")!, now: now, maxHops: 8, maxOfflineHolding: 1_000_000)
        payer = try Wallet.create(directory: root + "/payer", keyCost: .testing)
        payee = try Wallet.create(directory: root + "/payee", keyCost: .testing)
        for w in [payer, payee] {
            try w.installTrust(
                authority: issuer.authority.publicKey, keyset: issuer.keyset.encoded, limits: issuer.limits.encoded)
        }
        if funds > 0 { try payer.deposit([try issuer.issue(funds, to: payer.publicKey, now: now)]) }
    }

    /// A third wallet (say, Carol) trusting the same issuer, with no funds.
    public func otherWallet(_ name: String) throws -> Wallet {
        let wallet = try Wallet.create(directory: root + "/" + name, keyCost: .testing)
        try wallet.installTrust(
            authority: issuer.authority.publicKey, keyset: issuer.keyset.encoded, limits: issuer.limits.encoded)
        return wallet
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// Short timers so a lost frame costs milliseconds, and liveness bounds (not speed checks)
    /// for the whole payment and for a payer's resume after a drop (`linger` counts from the
    /// drop; a loaded CI machine can take far more than 200 ms to reconnect, and a payee that
    /// stopped lingering turns the resume away as "payee not found"); no assertion may depend
    /// on them. A payee waits out the linger only when its final ACK was lost.
    public static let sessionOptions = SessionOptions(
        retransmitAfter: .milliseconds(30), timeout: .seconds(120), linger: .seconds(5))
}
