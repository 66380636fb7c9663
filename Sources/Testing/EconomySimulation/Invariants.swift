import Foundation

/// What the simulator itself counted for one account, independently of the issuer: money paid
/// in from outside, and the value of offline payments its wallets accepted and signed away.
/// Once every note has been redeemed or refunded, the account's balance must be exactly
/// `funded + received - sent`: nothing created, nothing lost, every accepted payment paid.
public struct AccountTally: Sendable, Equatable {
    public var funded: Int64 = 0
    public var received: Int64 = 0
    public var sent: Int64 = 0
    public init(funded: Int64 = 0, received: Int64 = 0, sent: Int64 = 0) {
        self.funded = funded
        self.received = received
        self.sent = sent
    }
    public var expectedBalance: Int64 { funded + received - sent }
}

/// One fraud case as the issuer's books hold it.
public struct FraudCaseRow: Sendable, Equatable {
    public let id: Int64
    public let state: [UInt8]
    public let cheaterKey: [UInt8]
    public let cheaterAccount: Int64?
    public let status: String
    public init(id: Int64, state: [UInt8], cheaterKey: [UInt8], cheaterAccount: Int64?, status: String) {
        self.id = id
        self.state = state
        self.cheaterKey = cheaterKey
        self.cheaterAccount = cheaterAccount
        self.status = status
    }
}

/// A double spend the simulator committed, and who must be named for it.
public struct DoubleSpendRecord: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// The second transfer went to a payee that had seen the first: refused offline, proof reported.
        case payeeCouldKnow = "double-spend-payee-could-know"
        /// The second transfer went to a payee that could not know: detected at redemption.
        case payeeCouldNotKnow = "double-spend-payee-could-not-know"
        /// A state exchanged by a second restore spent by the old device: fraud (§5.2 rule 5).
        case secondRestore = "restore-used-twice"
    }
    public let kind: Kind
    /// The state spent twice.
    public let state: [UInt8]
    /// The key that signed both spends, and its account.
    public let signer: [UInt8]
    public let account: Int64
    public init(kind: Kind, state: [UInt8], signer: [UInt8], account: Int64) {
        self.kind = kind
        self.state = state
        self.signer = signer
        self.account = account
    }
}

/// The money rules as checks over the issuer's books and the simulator's own tallies. Pure
/// functions: each returns the violations it found (empty when the rule holds), so a test can
/// feed it corrupted input and see it fail.
public enum InvariantChecker {
    /// Value conserved to the cent: what users hold in accounts plus what is out in notes (the
    /// float) equals what was paid in from outside, as the simulator counted it.
    public static func conservation(userBalances: Int64, float: Int64, funded: Int64) -> [String] {
        userBalances + float == funded
            ? []
            : [
                "conservation: user balances \(userBalances) + notes outstanding \(float) = \(userBalances + float), but \(funded) was paid in (difference \(userBalances + float - funded))"
            ]
    }

    /// Zero honest wallets frozen: every frozen account is a cheater's.
    public static func frozen(_ frozen: [Int64], cheaters: Set<Int64>) -> [String] {
        frozen.filter { !cheaters.contains($0) }.map { "honest account \($0) is frozen" }
    }

    /// Zero honest wallets named: every fraud case names a key of a cheater's account, except
    /// a restore conflict (§5.2 rule 5), which may name an account that restored a backup.
    public static func attribution(
        _ cases: [FraudCaseRow], keyAccounts: [[UInt8]: Int64], cheaters: Set<Int64>, restorers: Set<Int64>
    ) -> [String] {
        cases.compactMap { c in
            guard let account = keyAccounts[c.cheaterKey] else {
                return "fraud case \(c.id) names key \(hex(c.cheaterKey.prefix(8))) that belongs to no simulated wallet"
            }
            if c.cheaterAccount != account {
                return
                    "fraud case \(c.id) names account \(c.cheaterAccount.map(String.init) ?? "none") for a key of account \(account)"
            }
            if c.status == "restore_conflict" {
                return restorers.contains(account) || cheaters.contains(account)
                    ? nil
                    : "restore conflict \(c.id) names account \(account), which never restored a backup"
            }
            return cheaters.contains(account) ? nil : "fraud case \(c.id) (\(c.status)) names honest account \(account)"
        }
    }

    /// Every double spend detected and attributed to its signer: a fraud case for the state,
    /// naming the key that signed twice; after a second restore, fraud rather than a conflict.
    public static func detected(_ records: [DoubleSpendRecord], cases: [[UInt8]: [FraudCaseRow]]) -> [String] {
        records.compactMap { r in
            guard let found = cases[r.state], !found.isEmpty else {
                return "\(r.kind.rawValue) of state \(hex(r.state.prefix(8))) by account \(r.account) was never detected"
            }
            guard found.contains(where: { $0.cheaterKey == r.signer && $0.cheaterAccount == r.account }) else {
                return
                    "\(r.kind.rawValue) of state \(hex(r.state.prefix(8))) attributed to \(found.map { hex($0.cheaterKey.prefix(8)) }), not its signer \(hex(r.signer.prefix(8)))"
            }
            if r.kind == .secondRestore, found.allSatisfy({ $0.status == "restore_conflict" }) {
                return
                    "restore used twice by account \(r.account): state \(hex(r.state.prefix(8))) treated as a restore conflict, not fraud"
            }
            return nil
        }
    }

    /// Every account ends with exactly what the simulator says it earned: every payment an
    /// honest payee accepted was credited to it, and no one got value from nowhere.
    public static func accounts(balances: [Int64: Int64], tallies: [Int64: AccountTally]) -> [String] {
        tallies.keys.sorted().compactMap { account in
            let expected = tallies[account]!.expectedBalance
            let actual = balances[account] ?? 0
            return actual == expected
                ? nil
                : "account \(account) holds \(actual), expected \(expected) (paid in \(tallies[account]!.funded), received \(tallies[account]!.received), sent \(tallies[account]!.sent); difference \(actual - expected))"
        }
    }

    static func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
