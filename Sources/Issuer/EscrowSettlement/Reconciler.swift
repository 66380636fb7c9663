import Ethereum
import IssuerCore

/// The escrow's token balance against the books (docs/server.md, "Reconciliation").
///
/// The books are read first, in one snapshot (`Issuer.escrowLiabilities`: balances, cursor and
/// open withdrawals together); then the head H is read once and every EVM value is read at H.
/// In that order everything the snapshot knows happened at or before H — the cursor was a
/// confirmed block, a settled payout had its receipt — so the two sides describe one moment:
///
///     expected = accounts + outstandingNotes + pendingWithdrawals + unclaimed
///                + uncreditedDeposits (Deposit logs in (cursor, H])
///                − paidNotSettled (open withdrawals the escrow has paid by H)
///
/// and `ok ⇔ balanceOf(escrow) at H == expected`. No lock with the payout sender or another
/// server process is needed.
struct Reconciler: Sendable {
    let escrow: Escrow
    let issuer: Issuer
    let startBlock: UInt64
    var rangeSize: UInt64 = 2_000

    func reconcile() async throws -> Reconciliation {
        let books = try await issuer.escrowLiabilities()
        let block = try await escrow.head()
        let balance = try Self.int64(try await escrow.balance(at: block), "the escrow's token balance at block \(block)")
        var uncredited: Int64 = 0
        var from = books.creditedThrough.map { $0 + 1 } ?? startBlock
        while from <= block {
            let to = min(block, from + rangeSize - 1)
            for event in try await escrow.events(EscrowContract.depositTopic, from: from, to: to) {
                let amount = try Self.int64(
                    event.amountWord, "deposit \(Hex.encode(event.transactionHash)) log \(event.logIndex)")
                uncredited = try Self.add(uncredited, amount)
            }
            from = to + 1
        }
        var paidNotSettled: Int64 = 0
        for withdrawal in books.open where try await escrow.paid(withdrawal.id, at: block) {
            paidNotSettled = try Self.add(paidNotSettled, Int64(withdrawal.amount))
        }
        return try Reconciliation(
            block: block, escrowBalance: balance, liabilities: books, uncreditedDeposits: uncredited,
            paidNotSettled: paidNotSettled)
    }

    /// A uint256 the ledger's signed 64-bit sums can hold, or an error naming it.
    static func int64(_ word: [UInt8], _ what: String) throws(EscrowSettlementError) -> Int64 {
        guard let value = try? ABI.decodeUInt64(word), value <= UInt64(Int64.max) else {
            throw .malformedAnswer(
                "\(what) is \(ABI.decimalString(word)) units, beyond what the books can add up (\(Int64.max)); reconcile by hand")
        }
        return Int64(value)
    }

    static func add(_ a: Int64, _ b: Int64) throws(EscrowSettlementError) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard !overflow else {
            throw .malformedAnswer("the escrow's uncredited deposits add up beyond \(Int64.max) units; reconcile by hand")
        }
        return sum
    }
}
