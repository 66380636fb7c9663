import OfflineNotes

/// How a payment travelled.
public enum PaymentMethod: String, Sendable, Codable, CaseIterable {
    case qr
    case bluetooth
    /// Nearby session over TCP (command line, tests).
    case tcp
    case online
}

/// Where a note state stands in this wallet (docs/design.md §4).
public enum NoteStatus: String, Sendable, Codable, CaseIterable {
    /// Purchased or change: spendable offline.
    case available
    /// Signed away in a payment that has no receipt yet. Never spendable again.
    case reserved
    /// Signed away and receipted.
    case spent
    /// Received offline, spendable offline, not yet redeemed online.
    case received = "received"
    /// Redeemed online: the value is in the account.
    case settled
    case expired
    case refunded
}

/// A note state as the wallet stores it.
public struct StoredState: Sendable, Equatable {
    public let ref: StateRef
    /// The proof of the state, as received or built; verified when it was stored.
    public let chain: Chain
    public let status: NoteStatus
    /// Held back from offline spending until the issuer has been asked about it: restored from
    /// a backup (see `restored`), or handed to the issuer in a refresh whose answer was lost.
    public let needsOnlineCheck: Bool
    /// Restored from a backup: owned by the old key, never spent offline, exchanged online
    /// for notes of this wallet's key (docs/protocol.md §5.2 rule 5).
    public let restored: Bool

    public var amount: UInt64 { chain.heldOutput?.amount ?? 0 }
}

/// Balances in minor units of the wallet's currency.
///
/// The first five lines partition everything the wallet holds or has in flight, so they always
/// add up to `total`: `spendable + needsRefresh + needsOnlineCheck + expired + reserved`.
/// `unsettled` is not a sixth part: it says how much of those parts was received offline and
/// is not yet redeemed.
public struct Balance: Sendable, Equatable, Codable {
    public let currency: Currency
    /// Can be paid offline now: exactly the notes `pay` may use.
    public let spendable: UInt64
    /// Held, but not payable until `sync` refreshes them online: at the hop limit, or inside
    /// the no-spend window before expiry (`WalletEnvironment.expiryMargin`).
    public let needsRefresh: UInt64
    /// Restored from a backup; exchanged online by the next sync before any of it is spent.
    public let needsOnlineCheck: UInt64
    /// Expired before being spent; redeemed or refunded online.
    public let expired: UInt64
    /// In payments awaiting a receipt (the value sent; the change is back in `spendable`).
    public let reserved: UInt64
    /// Of the parts above, received offline and not yet redeemed.
    public let unsettled: UInt64
    /// The largest single payment `pay` can make now: `spendable`, unless the value is spread
    /// over more notes than one payment may carry (`PaymentBundle.maxChains`).
    public let largestPayment: UInt64
    /// What counts against the offline holding limit: unexpired notes held (not reserved).
    public let holding: UInt64
    /// The limit on `holding` (`Limits.maxOfflineHolding`).
    public let holdingLimit: UInt64

    /// Everything the wallet holds or has in flight.
    public var total: UInt64 {
        Amount.sum([spendable, needsRefresh, needsOnlineCheck, expired, reserved]) ?? Amount.max
    }
    /// How much more the wallet may accept offline before it must redeem: the same rule
    /// `receive` applies.
    public var riskBudgetLeft: UInt64 { holdingLimit > holding ? holdingLimit - holding : 0 }
}

/// A payment this wallet signed. `bundle` is what to (re)send, byte for byte.
public struct OutgoingPayment: Sendable, Equatable {
    public enum Status: String, Sendable, Codable { case signed, completed }
    public let id: Digest32
    public let request: PaymentRequest
    public let bundle: [UInt8]
    public let amount: UInt64
    public let currency: Currency
    public let method: PaymentMethod
    public let status: Status
    public let receipt: Receipt?
}

/// A payment this wallet accepted, with the receipt to hand back to the payer.
public struct ReceivedPayment: Sendable, Equatable {
    public let id: Digest32
    public let nonce: Nonce
    public let amount: UInt64
    public let currency: Currency
    public let receipt: Receipt
}

/// One line of the user's history.
public struct HistoryEntry: Sendable, Equatable, Codable {
    /// `sent` and `received` cover offline payments and online transfers (`method` tells them
    /// apart); `funded`, `refunded` (expired notes) and `charged` (a double spend or restore
    /// conflict paid from the account) come from the issuer's account journal.
    public enum Direction: String, Sendable, Codable, CaseIterable { case sent, received, purchased, funded, refunded, charged }
    public enum Status: String, Sendable, Codable, CaseIterable { case pending, completed, failed }

    public let id: Int64
    public let direction: Direction
    public let counterparty: String
    public let amount: UInt64
    public let currency: String
    public let online: Bool
    public let method: String
    public let status: Status
    public let error: String?
    public let createdAt: Timestamp
    public let updatedAt: Timestamp
}

/// Which history entries to list, newest first.
public struct HistoryFilter: Sendable, Equatable {
    public var direction: HistoryEntry.Direction?
    public var status: HistoryEntry.Status?
    public var method: PaymentMethod?
    public var since: Timestamp?
    public var until: Timestamp?
    public var limit: Int
    public var offset: Int

    public init(
        direction: HistoryEntry.Direction? = nil, status: HistoryEntry.Status? = nil,
        method: PaymentMethod? = nil, since: Timestamp? = nil, until: Timestamp? = nil,
        limit: Int = 50, offset: Int = 0
    ) {
        self.direction = direction
        self.status = status
        self.method = method
        self.since = since
        self.until = until
        self.limit = limit
        self.offset = offset
    }
}

/// What an online state check found for one note state.
public enum OnlineStateCheck: Sendable, Equatable {
    case unspent
    case spent
}
