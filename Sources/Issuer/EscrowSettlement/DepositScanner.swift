import Ethereum
import IssuerCore
import Logging

/// Credits the escrow's `Deposit` events once they have enough confirmations.
///
/// A block with k blocks on top of it has k + 1 confirmations (the block itself is the first).
/// Each pass reads the head and scans `(cursor, head − confirmations + 1]` in ranges of at
/// most `rangeSize` blocks, crediting each range in one database transaction that also moves
/// the cursor. It never reads past the confirmed block, so a deposit a reorganisation takes
/// back before its confirmations is never seen. Exactly-once is the database's job (one row
/// per transaction hash and log index): a range scanned again after a crash, or by another
/// server process, credits nothing twice.
struct DepositScanner: Sendable {
    let escrow: Escrow
    let issuer: Issuer
    let confirmations: UInt64
    let startBlock: UInt64
    let logger: Logger
    var rangeSize: UInt64 = 2_000

    /// The last block with `confirmations` confirmations at `head`, or nil if none has.
    static func confirmed(head: UInt64, confirmations: UInt64) -> UInt64? {
        head + 1 >= confirmations ? head + 1 - confirmations : nil
    }

    /// One pass; returns what was done with each deposit found.
    func scan() async throws -> [(EscrowContract.Event, DepositOutcome)] {
        let head = try await escrow.head()
        guard let confirmed = Self.confirmed(head: head, confirmations: confirmations) else { return [] }
        // The cursor wins over --escrow-start-block once set: the start block only says where
        // the first scan begins (the escrow's deployment), never skips what a cursor still owes.
        var from = try await issuer.escrowCursor().map { $0 + 1 } ?? startBlock
        var results: [(EscrowContract.Event, DepositOutcome)] = []
        while from <= confirmed {
            let to = min(confirmed, from + rangeSize - 1)
            let events = try await escrow.events(EscrowContract.depositTopic, from: from, to: to)
            let deposits = events.map { event in
                EscrowDeposit(
                    txHash: event.transactionHash, logIndex: event.logIndex, blockNumber: event.blockNumber, accountRef: event.id,
                    // A uint256 beyond 64 bits goes in as UInt64.max, which the books record as refused
                    // (above Amount.max) without crediting anything; its exact value is logged below.
                    amount: event.amount ?? UInt64.max)
            }
            let outcomes = try await issuer.creditEscrowDeposits(deposits, scannedThrough: to)
            for (event, outcome) in zip(events, outcomes) {
                log(event, outcome)
                results.append((event, outcome))
            }
            from = to + 1
        }
        return results
    }

    func log(_ event: EscrowContract.Event, _ outcome: DepositOutcome) {
        let what =
            "deposit \(Hex.encode(event.transactionHash)) log \(event.logIndex) (block \(event.blockNumber)) of \(ABI.decimalString(event.amountWord)) units from \(event.address)"
        switch outcome {
        case .credited(let account): logger.info("\(what) credited to account \(account)")
        case .unclaimed:
            logger.warning(
                "\(what) has the unknown account reference \(Hex.encode(event.id)): credited to system:unclaimed; an admin assigns it with POST /v1/admin/escrow/unclaimed/assign (docs/server.md, Escrow settlement)"
            )
        case .duplicate: logger.debug("\(what) was credited before")
        case .refused(let reason):
            logger.critical(
                "\(what) CANNOT BE CREDITED: \(reason). The tokens are in the escrow but in no account: reconciliation shows them as a difference until resolved by hand (docs/server.md, Escrow settlement)"
            )
        }
    }
}
