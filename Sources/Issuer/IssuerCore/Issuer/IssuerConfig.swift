import OfflineNotes

/// What to do when a chain conflicts with an earlier spend of one of its states.
public enum DoubleSpendPolicy: String, Sendable, CaseIterable {
    /// Default: the honest later receiver is credited, from the cheater's account, which is
    /// allowed into debt and frozen.
    case creditLaterReceiver = "credit-later-receiver"
    /// The later receiver is not credited; the case stays open for manual settlement.
    case rejectLaterReceiver = "reject-later-receiver"
}

/// Issuer settings. Defaults suit a small deployment in euros.
public struct IssuerConfig: Sendable {
    public var currency: Currency
    public var maxOfflineHolding: UInt64
    public var maxHops: Int
    public var noteLifetime: UInt64
    public var redemptionGrace: UInt64
    public var policy: DoubleSpendPolicy
    /// Allows `fund` (development and tests). Real money arrives through a settlement adapter.
    public var devFunding: Bool
    /// Password hashing cost (scrypt); tests lower it.
    public var passwordCost: PasswordHasher.Cost
    /// Redemption transactions in flight at once (group commit). Nil: 1 on SQLite (one writer);
    /// on PostgreSQL 2 (one batch is written while the other commits) on a machine of 4 cores or
    /// more, 1 on a smaller one. Every batch has a fixed cost whatever its size (mostly its
    /// round trips), so more, smaller batches cost more CPU per redemption; below 4 cores the
    /// overlap of a second batch does not pay for that (measured in docs/performance.md,
    /// "A batch's fixed cost").
    /// Balances are applied at batch end in account order, and each slot adds to its own float
    /// shard, so parallel batches neither deadlock nor queue on one row.
    public var redemptionParallelism: Int?
    /// Seconds during which a refresh token that was just rotated may be presented again and
    /// get the same successor, instead of counting as theft: the answer to a refresh can be
    /// lost (network, server crash after commit). Short on purpose: a thief who replays the
    /// old token inside the window and before the owner's next refresh is not caught at once
    /// (only when both use the successor). 0 turns the window off.
    public var refreshReuseWindow: Int64 = 60

    public init(
        currency: Currency, maxOfflineHolding: UInt64 = 50_000, maxHops: Int = 8, noteLifetime: UInt64 = 30 * 86_400,
        redemptionGrace: UInt64 = 14 * 86_400, policy: DoubleSpendPolicy = .creditLaterReceiver, devFunding: Bool = false,
        passwordCost: PasswordHasher.Cost = .standard
    ) {
        self.currency = currency
        self.maxOfflineHolding = maxOfflineHolding
        self.maxHops = maxHops
        self.noteLifetime = noteLifetime
        self.redemptionGrace = redemptionGrace
        self.policy = policy
        self.devFunding = devFunding
        self.passwordCost = passwordCost
    }
}

/// The issuer's keys: the long-term authority key (signs keysets and limits) and the issuing
/// keys with their windows. The newest key whose window contains `now` signs new notes.
public struct IssuerKeyring: Sendable {
    public struct Issuing: Sendable {
        public let signer: SoftwareSigner
        public let validFrom: Timestamp
        public let validUntil: Timestamp

        public init(signer: SoftwareSigner, validFrom: Timestamp, validUntil: Timestamp) {
            self.signer = signer
            self.validFrom = validFrom
            self.validUntil = validUntil
        }
    }

    public let authority: SoftwareSigner
    public let issuing: [Issuing]
    public let sequence: UInt64

    public init(authority: SoftwareSigner, issuing: [Issuing], sequence: UInt64 = 1) {
        self.authority = authority
        self.issuing = issuing
        self.sequence = sequence
    }

    func current(at now: Timestamp) -> Issuing? {
        issuing.filter { $0.validFrom <= now && now < $0.validUntil }.max { $0.validFrom < $1.validFrom }
    }
}
