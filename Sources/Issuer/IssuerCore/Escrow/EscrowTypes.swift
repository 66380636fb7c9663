import Foundation
import OfflineNotes

// The issuer's side of settlement on an EVM network: the values the escrow monitor
// (module EscrowSettlement) hands to the books and reads back. No EVM I/O here.

/// One `Deposit(account_ref, sender, amount)` log of the escrow, as the monitor saw it with
/// enough confirmations. `(txHash, logIndex)` names it uniquely on the blockchain.
public struct EscrowDeposit: Sendable, Equatable {
    /// The transaction that emitted the log (32 bytes).
    public var txHash: [UInt8]
    /// The log's index in its block.
    public var logIndex: UInt64
    public var blockNumber: UInt64
    /// The `bytes32 account_ref` the depositor passed (32 bytes).
    public var accountRef: [UInt8]
    /// Token units = minor units of the issuer's currency.
    public var amount: UInt64

    public init(txHash: [UInt8], logIndex: UInt64, blockNumber: UInt64, accountRef: [UInt8], amount: UInt64) {
        self.txHash = txHash
        self.logIndex = logIndex
        self.blockNumber = blockNumber
        self.accountRef = accountRef
        self.amount = amount
    }

    /// The journal reference of its posting: tx hash ‖ log index (8 bytes, big-endian).
    var reference: [UInt8] { txHash + withUnsafeBytes(of: logIndex.bigEndian, Array.init) }
}

/// What `Issuer.creditEscrowDeposits` did with one deposit.
public enum DepositOutcome: Sendable, Equatable {
    /// Credited to this account (now, by this call).
    case credited(account: Int64)
    /// The reference names no account: credited to `system:unclaimed` for the operator to resolve.
    case unclaimed
    /// Recorded before (by an earlier call or another process): nothing posted this time.
    case duplicate
    /// Recorded but not credited: the amount is 0 or above `Amount.max`, which the ledger cannot
    /// hold. The escrow contract refuses amount 0, so only a foreign contract or a token supply
    /// beyond 2^63 units produces one. The row (`escrow_deposit.status = 'refused'`, with the exact
    /// amount in `reason`) explains the difference reconciliation then shows.
    case refused(reason: String)
}

/// A withdrawal of account balance to a blockchain address.
public struct Withdrawal: Sendable, Equatable, Codable {
    public enum Status: String, Sendable, Codable, CaseIterable {
        /// Debited; no payout transaction signed yet (or the last one died and must be re-signed).
        case pending
        /// A payout transaction is signed with `nonce` and broadcast (`txHash`, `rawTransaction`).
        case sent
        /// The payout was mined and succeeded: the tokens left the escrow.
        case paid
        /// The escrow refused the payout (mined with status 0): the amount is back on the account.
        case refused
    }

    /// `bytes32 withdrawalId` in the escrow (32 random bytes).
    public var id: [UInt8]
    public var account: Int64
    public var amount: UInt64
    /// The recipient address (20 bytes).
    public var to: [UInt8]
    public var status: Status
    public var nonce: UInt64?
    public var txHash: [UInt8]?
    public var rawTransaction: [UInt8]?
    public var reason: String?
    public var createdAt: Int64
    public var updatedAt: Int64

    public init(
        id: [UInt8], account: Int64, amount: UInt64, to: [UInt8], status: Status, nonce: UInt64? = nil, txHash: [UInt8]? = nil,
        rawTransaction: [UInt8]? = nil, reason: String? = nil, createdAt: Int64, updatedAt: Int64
    ) {
        self.id = id
        self.account = account
        self.amount = amount
        self.to = to
        self.status = status
        self.nonce = nonce
        self.txHash = txHash
        self.rawTransaction = rawTransaction
        self.reason = reason
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// The escrow the server settles through, and its network, as clients are told.
public struct EscrowInfo: Sendable, Equatable {
    public var chainID: UInt64
    /// Escrow contract address, EIP-55 checksummed.
    public var escrow: String
    /// Token contract address, EIP-55 checksummed.
    public var token: String
    /// Token decimals (= the currency's minor-unit digits).
    public var decimals: Int
    /// Blocks on top of a deposit before it is credited.
    public var confirmations: Int

    public init(chainID: UInt64, escrow: String, token: String, decimals: Int, confirmations: Int) {
        self.chainID = chainID
        self.escrow = escrow
        self.token = token
        self.decimals = decimals
        self.confirmations = confirmations
    }
}

/// What the books owe against the escrow, read in one consistent snapshot of the database.
/// All amounts in minor units.
public struct EscrowLiabilities: Sendable, Equatable {
    /// Signed sum of all user (and admin) balances.
    public var accounts: Int64
    /// What accounts in debt owe: the magnitude of the negative balances (already in `accounts`).
    public var debts: Int64
    /// Offline notes issued and not yet redeemed or refunded (`system:float`).
    public var float: Int64
    /// Withdrawals debited and not yet paid or refused (`system:withdrawals`).
    public var pendingWithdrawals: Int64
    /// Deposits with an unknown account reference (`system:unclaimed`).
    public var unclaimed: Int64
    /// The deposit cursor in the same snapshot: the last block whose deposits are all credited.
    public var creditedThrough: UInt64?
    /// Pending and sent withdrawals in the same snapshot, oldest first (for `paidNotSettled`).
    public var open: [Withdrawal]

    public init(
        accounts: Int64, debts: Int64, float: Int64, pendingWithdrawals: Int64, unclaimed: Int64, creditedThrough: UInt64? = nil,
        open: [Withdrawal] = []
    ) {
        self.accounts = accounts
        self.debts = debts
        self.float = float
        self.pendingWithdrawals = pendingWithdrawals
        self.unclaimed = unclaimed
        self.creditedThrough = creditedThrough
        self.open = open
    }

    /// What the escrow must hold for these books: accounts + float + pending withdrawals + unclaimed.
    public var total: Int64 {
        get throws(IssuerError) {
            var sum = accounts
            for part in [float, pendingWithdrawals, unclaimed] { sum = try Ledger.add(sum, part) }
            return sum
        }
    }
}

/// The escrow's token balance against the books at one block (docs/server.md).
///
/// `expected = accounts + outstandingNotes + pendingWithdrawals + unclaimed + uncreditedDeposits
/// − paidNotSettled`; `ok ⇔ escrowBalance == expected`. EVM values that do not fit Int64 are
/// an error of the monitor, never truncated.
public struct Reconciliation: Sendable, Equatable, Codable {
    public var block: UInt64
    public var escrowBalance: Int64
    public var accounts: Int64
    public var debts: Int64
    public var outstandingNotes: Int64
    public var pendingWithdrawals: Int64
    public var unclaimed: Int64
    /// Deposit logs in (creditedThrough, block]: in the escrow, not yet in the books.
    public var uncreditedDeposits: Int64
    /// Payouts mined at or before `block` whose withdrawal is still pending or sent: out of the
    /// escrow, still in `pendingWithdrawals`.
    public var paidNotSettled: Int64
    public var expected: Int64
    /// escrowBalance − expected.
    public var difference: Int64
    public var ok: Bool
    public var creditedThrough: UInt64?

    public init(
        block: UInt64, escrowBalance: Int64, accounts: Int64, debts: Int64, outstandingNotes: Int64, pendingWithdrawals: Int64,
        unclaimed: Int64, uncreditedDeposits: Int64, paidNotSettled: Int64, expected: Int64, difference: Int64, ok: Bool,
        creditedThrough: UInt64?
    ) {
        self.block = block
        self.escrowBalance = escrowBalance
        self.accounts = accounts
        self.debts = debts
        self.outstandingNotes = outstandingNotes
        self.pendingWithdrawals = pendingWithdrawals
        self.unclaimed = unclaimed
        self.uncreditedDeposits = uncreditedDeposits
        self.paidNotSettled = paidNotSettled
        self.expected = expected
        self.difference = difference
        self.ok = ok
        self.creditedThrough = creditedThrough
    }

    /// Computes `expected`, `difference` and `ok` from the books and the EVM at `block`.
    /// Throws `amountOverflow` if a sum leaves Int64 (it cannot for books the ledger holds).
    public init(
        block: UInt64, escrowBalance: Int64, liabilities l: EscrowLiabilities, uncreditedDeposits: Int64, paidNotSettled: Int64
    ) throws(IssuerError) {
        let (expected, overflowExpected) = try Ledger.add(try l.total, uncreditedDeposits).subtractingReportingOverflow(
            paidNotSettled)
        let (difference, overflow) = escrowBalance.subtractingReportingOverflow(expected)
        guard !overflow, !overflowExpected else { throw .amountOverflow }
        self.init(
            block: block, escrowBalance: escrowBalance, accounts: l.accounts, debts: l.debts, outstandingNotes: l.float,
            pendingWithdrawals: l.pendingWithdrawals, unclaimed: l.unclaimed, uncreditedDeposits: uncreditedDeposits,
            paidNotSettled: paidNotSettled, expected: expected, difference: difference, ok: difference == 0,
            creditedThrough: l.creditedThrough)
    }
}

/// The EVM side of settlement, as the HTTP layer sees it (implemented by EscrowSettlement).
/// The server runs without one unless started with `--escrow-rpc`; every escrow route then
/// answers 404 `escrow_not_configured`.
public protocol EscrowMonitor: Sendable {
    /// The network and contracts, read at start.
    var info: EscrowInfo { get }
    /// Reads the escrow balance at a pinned block and compares it with the books.
    func reconcile() async throws -> Reconciliation
    /// Asks the monitor to look at open withdrawals now (after a new request) instead of at
    /// its next poll. Returns at once.
    func wake()
    /// Parses a recipient address: 0x and 40 hex digits, all lower case, all upper case or
    /// EIP-55 checksummed mixed case (a wrong checksum is refused); returns its 20 bytes.
    /// Lives here because the checksum needs Keccak-256 (module Ethereum), which the HTTP layer
    /// does not depend on. The error's description is shown to the client.
    func parseAddress(_ text: String) throws -> [UInt8]
    /// An address as EIP-55 checksummed text.
    func format(address: [UInt8]) -> String
    /// The last reconciliation this monitor made (by `reconcile()` or its own schedule), for
    /// the /metrics gauges; nil before the first.
    var lastReconciliation: Reconciliation? { get }
}

extension EscrowMonitor {
    /// Without Keccak only single-case addresses can be checked: mixed case is refused.
    /// EscrowSettlement replaces this with the full EIP-55 check.
    public func parseAddress(_ text: String) throws -> [UInt8] {
        try EVMHex.parseSingleCase(text)
    }

    /// Lower-case hex (not checksummed). EscrowSettlement replaces this with EIP-55.
    public func format(address: [UInt8]) -> String { EVMHex.hex(address) }

    public var lastReconciliation: Reconciliation? { nil }
}

/// 0x-hex text of EVM values (ids, hashes, references) — no checksum.
public enum EVMHex {
    /// "0x" and lower-case hex digits.
    public static func hex(_ bytes: [UInt8]) -> String {
        "0x" + Hex.encode(bytes)
    }

    /// "0x" and exactly `count` bytes of hex digits (either case), or nil.
    public static func bytes(_ text: String, count: Int) -> [UInt8]? {
        guard text.utf8.count == 2 + 2 * count, text.hasPrefix("0x") || text.hasPrefix("0X") else { return nil }
        return Hex.decode(String(text.dropFirst(2)))
    }

    /// An address whose hex digits are all lower or all upper case (no checksum to check).
    public static func parseSingleCase(_ text: String) throws(IssuerError) -> [UInt8] {
        guard let bytes = bytes(text, count: 20) else {
            throw .invalidField(field: "to", reason: "an address is 0x followed by 40 hex digits")
        }
        let digits = text.dropFirst(2)
        guard digits == digits.lowercased() || digits == digits.uppercased() else {
            throw .invalidField(
                field: "to",
                reason:
                    "mixed-case addresses need an EIP-55 checksum check, which this server cannot do; send the address in lower case"
            )
        }
        return bytes
    }
}

/// An unclaimed escrow deposit an admin assigned to an account (`Issuer.assignUnclaimedDeposit`).
public struct AssignedDeposit: Sendable, Equatable {
    public var txHash: [UInt8]
    public var logIndex: UInt64
    public var blockNumber: UInt64
    public var amount: UInt64
    /// The account credited.
    public var account: Int64
    public var reason: String
    /// The admin who assigned it.
    public var assignedBy: Int64
    public var assignedAt: Int64
}

/// Tokens that reached the escrow outside `deposit`, booked into `system:unclaimed`
/// (`Issuer.bookEscrowSurplus`).
public struct EscrowSurplus: Sendable, Equatable {
    /// The token Transfer's transaction (32 bytes), for the record; one booking per hash.
    public var txHash: [UInt8]
    public var amount: UInt64
    public var reason: String
    /// The admin who booked it.
    public var bookedBy: Int64
    public var bookedAt: Int64
    /// True when this answer is an earlier booking of the same transaction (nothing booked now).
    public var replayed: Bool
}

/// The journal kinds escrow settlement writes, as the journal stores them. Their spelling is
/// fixed for good: journal rows are never rewritten, and wallets already in use read these kinds
/// in their history (`chain-` is the prefix they were first written with). Code names them
/// through these constants only.
public enum EscrowJournalKind {
    /// A Deposit log credited to an account, or to `system:unclaimed`.
    public static let deposit = "chain-deposit"
    /// An unclaimed deposit an admin assigned to an account.
    public static let assignedDeposit = "chain-deposit-assigned"
    /// Tokens that reached the escrow outside `deposit`, booked into `system:unclaimed`.
    public static let surplus = "chain-surplus"
}
