import Ethereum
import EthereumRPC
import IssuerCore
import Logging
import OfflineNotes

/// Pays open withdrawals out of the escrow and follows each payout to its end.
///
/// Per open withdrawal, oldest first:
/// - pending: sign `payout(to, amount, id)` with the operator key and a nonce the books hand
///   out (`Issuer.recordPayout`, which stores the raw transaction *before* it is broadcast),
///   then broadcast it.
/// - sent: the escrow's `paid(id)` at the last confirmed block → paid; a confirmed receipt with
///   status 0 → refused, the money back on the account; no receipt while the operator's mined
///   nonce has passed ours → the transaction is dead (another took its nonce): back to pending,
///   signed again with a new nonce; otherwise the same raw bytes are broadcast again (a node
///   that lost them, a restart).
///
/// The escrow refuses a withdrawal id it has paid, so however often a payout is resubmitted or
/// re-signed, it pays at most once; the books settle it exactly once (`completeWithdrawal`).
struct PayoutSender: Sendable {
    let escrow: Escrow
    let issuer: Issuer
    let key: PrivateKey
    let chainID: UInt64
    let confirmations: UInt64
    let currency: Currency
    let logger: Logger

    /// Fixed, so a payout the contract refuses is mined as a revert (status 0, the EVM's
    /// definitive answer) instead of failing gas estimation and never being mined. A payout
    /// uses about 60,000 to 132,000 (the first payout of a day to a new address).
    static let gasLimit: UInt64 = 200_000
    /// The tip when the node does not answer eth_maxPriorityFeePerGas: 1 gwei.
    static let fallbackPriorityFee: UInt128 = 1_000_000_000

    /// What a pass did with one withdrawal.
    enum Step: Equatable, Sendable {
        case sent, resubmitted, waiting, reset
        case settled(Withdrawal.Status)
    }

    /// One pass over the open withdrawals. A failure with one (the node down, say) is logged
    /// and leaves its row as it is for the next pass; the others are still tried.
    func pass() async throws -> [(Withdrawal, Step)] {
        var steps: [(Withdrawal, Step)] = []
        for withdrawal in try await issuer.openWithdrawals() {
            do {
                steps.append((withdrawal, try await advance(withdrawal)))
            } catch {
                logger.error(
                    "payout of withdrawal \(Hex.encode(withdrawal.id)) (\(withdrawal.status.rawValue)): \(error); retrying in the next pass"
                )
            }
        }
        return steps
    }

    func advance(_ withdrawal: Withdrawal) async throws -> Step {
        switch withdrawal.status {
        case .pending: return try await send(withdrawal)
        case .sent: return try await follow(withdrawal)
        case .paid, .refused: return .settled(withdrawal.status)
        }
    }

    /// Signs, records and broadcasts the payout of a pending withdrawal.
    func send(_ withdrawal: Withdrawal) async throws -> Step {
        let to: Address
        do { to = try Address(bytes: withdrawal.to) } catch {
            throw EscrowSettlementError.malformedAnswer("withdrawal recipient: \(error)")
        }
        let data = try EscrowContract.payout(to: to, amount: withdrawal.amount, withdrawalID: withdrawal.id)
        let nodeNonce = try await escrow.node("eth_getTransactionCount pending") {
            try await escrow.rpc.transactionCount(key.address, .pending)
        }
        let (priority, maxFee) = try await fees()
        let (chainID, signer, escrowAddress) = (chainID, key, escrow.address)
        let sent = try await issuer.recordPayout(id: withdrawal.id, nodeNonce: nodeNonce) { nonce in
            let transaction = EIP1559Transaction(
                chainID: chainID, nonce: nonce, maxPriorityFeePerGas: priority, maxFeePerGas: maxFee, gasLimit: Self.gasLimit,
                to: escrowAddress, value: 0, data: data)
            let signed = try transaction.signed(with: signer)
            return (signed.raw, signed.hash)
        }
        guard sent.status == .sent, let raw = sent.rawTransaction else { return .settled(sent.status) }
        logger.info(
            "payout of withdrawal \(Hex.encode(sent.id)): \(sent.amount) units to \(to), nonce \(sent.nonce ?? 0), transaction \(Hex.encode(sent.txHash ?? []))"
        )
        await broadcast(raw, of: sent)
        return .sent
    }

    /// Priority fee from the node (else 1 gwei), max fee 2 × the latest base fee + priority:
    /// room for the base fee to double before the payout stops being includable.
    func fees() async throws(EscrowSettlementError) -> (priority: UInt128, maxFee: UInt128) {
        let priority = (try? await escrow.rpc.maxPriorityFeePerGas()) ?? Self.fallbackPriorityFee
        let base = try await escrow.node("eth_getBlockByNumber latest") { try await escrow.rpc.block(.latest).baseFeePerGas } ?? 0
        let (doubled, o1) = base.multipliedReportingOverflow(by: 2)
        let (maxFee, o2) = doubled.addingReportingOverflow(priority)
        guard !o1, !o2 else { throw .malformedAnswer("base fee \(base) wei is beyond any fee a payout can pay") }
        return (priority, maxFee)
    }

    /// Broadcasts; a failure is only logged: the row is `sent` with these bytes, and the next
    /// pass finds out what became of them (and broadcasts them again if nothing did).
    func broadcast(_ raw: [UInt8], of withdrawal: Withdrawal) async {
        do {
            _ = try await escrow.rpc.sendRawTransaction(raw)
        } catch {
            logger.warning(
                "broadcast of the payout of withdrawal \(Hex.encode(withdrawal.id)) failed: \(error); the next pass looks at it again"
            )
        }
    }

    /// Follows a sent payout: paid, refused, dead (re-signed) or still on its way (broadcast again).
    func follow(_ withdrawal: Withdrawal) async throws -> Step {
        guard let nonce = withdrawal.nonce, let hash = withdrawal.txHash, let raw = withdrawal.rawTransaction else {
            throw EscrowSettlementError.malformedAnswer("withdrawal \(Hex.encode(withdrawal.id)) is sent without its transaction")
        }
        let head = try await escrow.head()
        let confirmed = DepositScanner.confirmed(head: head, confirmations: confirmations)
        if let confirmed, try await escrow.paid(withdrawal.id, at: confirmed) {
            let paid = try await issuer.completeWithdrawal(id: withdrawal.id, txHash: nil)
            logger.info(
                "withdrawal \(Hex.encode(withdrawal.id)) paid: \(withdrawal.amount) units to \(Self.text(withdrawal.to)) by \(Hex.encode(paid.txHash ?? hash))"
            )
            return .settled(paid.status)
        }
        // The mined nonce is read before the receipt: if our transaction was mined before this
        // read, its receipt is there in the next; so "no receipt, nonce passed" means another
        // transaction took the nonce, never that ours was mined in between. It is the nonce of
        // the key that signed it, which is not the current key once the owner replaced a
        // leaked operator key (the old key's thief may have used the nonce).
        let signer = (try? SignedTransaction(raw: raw).sender()) ?? key.address
        let minedNonce = try await escrow.node("eth_getTransactionCount latest") {
            try await escrow.rpc.transactionCount(signer, .latest)
        }
        let receipt = try await escrow.node("eth_getTransactionReceipt") { try await escrow.rpc.receipt(hash) }
        if let receipt {
            guard let confirmed, receipt.blockNumber <= confirmed else { return .waiting }
            guard receipt.status == 0 else {
                // Succeeded and confirmed, yet paid(id) is false at the confirmed block: not
                // the escrow's payout. Leave it for a person (the books stay as they are).
                logger.error(
                    "payout transaction \(Hex.encode(hash)) of withdrawal \(Hex.encode(withdrawal.id)) succeeded but the escrow does not list the id as paid; check --escrow-address"
                )
                return .waiting
            }
            let reason = await refusal(of: withdrawal, at: receipt.blockNumber)
            let refused = try await issuer.refuseWithdrawal(id: withdrawal.id, txHash: hash, reason: reason)
            logger.warning(
                "withdrawal \(Hex.encode(withdrawal.id)) refused by the escrow (transaction \(Hex.encode(hash)), block \(receipt.blockNumber)): \(reason); \(withdrawal.amount) units back on account \(withdrawal.account)"
            )
            return .settled(refused.status)
        }
        if minedNonce > nonce {
            logger.warning(
                "payout transaction \(Hex.encode(hash)) of withdrawal \(Hex.encode(withdrawal.id)) is dead: nonce \(nonce) was used by another transaction of the operator key; signing it again"
            )
            let pending = try await issuer.resetPayout(id: withdrawal.id)
            guard pending.status == .pending else { return .settled(pending.status) }
            _ = try await send(pending)
            return .reset
        }
        await broadcast(raw, of: withdrawal)
        return .resubmitted
    }

    /// Why the escrow refused a payout mined at `block`, read from its state there (a revert
    /// reason is not in the receipt): paused, operator replaced, over the daily cap; if none of
    /// these shows (or the node cannot say), the general reason.
    func refusal(of withdrawal: Withdrawal, at block: UInt64) async -> String {
        let prefix = "the escrow refused the payout"
        do {
            if try EscrowContract.bool(try await escrow.call(EscrowContract.paused, at: block, "paused()"), of: "paused()") {
                return "\(prefix): payouts are paused by the escrow's owner"
            }
            let current = try EscrowContract.address(
                try await escrow.call(EscrowContract.operator, at: block, "operator()"), of: "operator()")
            if current != key.address {
                return "\(prefix): the operator key was replaced (the escrow's operator is \(current))"
            }
            let cap = try await escrow.call(EscrowContract.dailyCap, at: block, "daily_cap()")
            let today = try await escrow.call(EscrowContract.paidToday, at: block, "paid_today()")
            if let cap = try? EscrowContract.uint64(cap, of: "daily_cap()"),
                let today = try? EscrowContract.uint64(today, of: "paid_today()"),
                today > cap || withdrawal.amount > cap - today
            {
                return
                    "\(prefix): over the escrow's daily payout cap (\(money(cap)) a day, \(money(today)) paid today); try again tomorrow or a smaller amount"
            }
            // None of those: the escrow's own words, from the same payout called at that block.
            if let to = try? Address(bytes: withdrawal.to) {
                let data = try EscrowContract.payout(to: to, amount: withdrawal.amount, withdrawalID: withdrawal.id)
                do {
                    _ = try await escrow.rpc.call(to: escrow.address, data: data, from: key.address, block: .number(block))
                } catch {
                    if error.isRevert { return "\(prefix): \(error.description)" }
                }
            }
        } catch {
            logger.debug("could not read why the escrow refused withdrawal \(Hex.encode(withdrawal.id)): \(error)")
        }
        return "\(prefix) (paused, over the daily cap, or the operator key replaced)"
    }

    /// Token units as money: one unit is one minor unit of the currency.
    func money(_ units: UInt64) -> String { "\(Amount.format(units, currency: currency)) \(currency.code)" }

    static func text(_ address: [UInt8]) -> String { (try? Address(bytes: address).checksummed) ?? Hex.encode(address) }
}
