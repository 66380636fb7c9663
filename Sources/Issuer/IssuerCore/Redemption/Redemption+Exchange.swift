import CrashPoints
import Crypto
import Foundation
import OfflineNotes
import SQLStore

// Exchanging chains for fresh notes: refresh (near expiry or the hop limit) and the exchange of
// states restored from a backup.

extension Issuer {
    /// Exchanges long or nearly expired chains for fresh notes owned by `walletKey`: redeems
    /// them, then buys notes of the same total. Retrying the same chains is safe at every
    /// point: redemption answers "already credited" with the amount, and the purchase uses an
    /// idempotency key derived from the chains, so it happens once.
    ///
    /// With `restore`, the chains hold states a restored wallet took from its backup (§5.2
    /// rule 5): a state already spent is retired (`already_spent`, no fraud case), and each
    /// state exchanged is remembered so that a transfer of it the old device surfaces later is
    /// a restore conflict, not fraud.
    public func refresh(
        account: Int64, walletKey: PublicKeyBytes, chains: [[UInt8]], restore: Bool = false
    ) async throws(IssuerError)
        -> (results: [RedeemResult], notes: [Chain])
    {
        let results =
            restore
            ? try await exchangeRestored(account: account, walletKey: walletKey, chains: chains)
            : try await redeem(account: account, chains: chains)
        var total: UInt64 = 0
        for r in results {
            switch r {
            case .credited(let a), .alreadyCredited(let a): total += a
            case .conflict(_, let c): total += c
            case .invalid: break
            }
        }
        guard total > 0 else { return (results, []) }
        CrashPoints.reach(.issuerRefreshRedeemed)
        let key = "refresh-" + Hex.encode(SHA256.hash(data: chains.flatMap { $0 } + walletKey.bytes).prefix(24))
        let notes = try await purchase(account: account, walletKey: walletKey, amount: total, idempotencyKey: key)
        CrashPoints.reach(.issuerRefreshCommitted)
        return (results, notes)
    }
}

extension Issuer {
    /// Redeems restored states one by one, remembering each exchange under the new wallet key.
    func exchangeRestored(
        account: Int64, walletKey: PublicKeyBytes, chains: [[UInt8]]
    ) async throws(IssuerError) -> [RedeemResult] {
        guard (1...64).contains(chains.count) else { throw .invalidField(field: "chains", reason: "1 to 64 chains") }
        var results: [RedeemResult] = []
        for bytes in chains {
            let now = self.now
            let state: VerifiedState
            do {
                state = try verifier.verifyChain(bytes, now: UInt64(now), checkExpiry: false)
            } catch {
                results.append(.invalid(code: error.code, reason: error.description))
                continue
            }
            guard UInt64(now) < state.expiresAt &+ config.redemptionGrace else {
                results.append(.invalid(code: "expired", reason: "the note expired and its redemption grace period is over"))
                continue
            }
            let item = RedemptionItem(account: account, state: state, entry: random(16))
            results.append(
                try await transaction { conn -> RedeemResult in
                    if let existing = try await conn.queryOne(
                        "SELECT kind, account_id, amount FROM spent_state WHERE state_ref = ?", state.ref.bytes)
                    {
                        guard try existing.text("kind") == "redeem" else {
                            return .invalid(
                                code: "already_spent",
                                reason: "the old device already spent this note; it is retired, not exchanged")
                        }
                        guard try existing.optionalInt("account_id") == account else {
                            return .invalid(code: "not_owner", reason: "redeemed by another account")
                        }
                        // Only this wallet's own exchange is answered again (a retry after a lost
                        // answer gets its notes back through the purchase's idempotency key). A
                        // state another restore of the backup exchanged, or that the account
                        // redeemed before, has its value elsewhere: counting it again would buy
                        // notes the account already paid for.
                        let exchange = try await conn.queryOne(
                            "SELECT restore_key FROM restore_exchange WHERE state_ref = ?", state.ref.bytes)
                        switch try exchange?.blob("restore_key") {
                        case walletKey.bytes?:
                            return .alreadyCredited(amount: try existing.uint("amount"))
                        case .some:
                            return .invalid(
                                code: "already_exchanged",
                                reason:
                                    "another restore of this backup already exchanged this note; its value is in that wallet's notes"
                            )
                        case nil:
                            return .invalid(
                                code: "already_redeemed",
                                reason: "this account already redeemed this note; its value is in the account's balance")
                        }
                    }
                    let deltas = Ledger.Deltas(shard: Int.random(in: 0..<Ledger.shardCount))
                    let result = try await self.write(item, conn, deltas)
                    try await deltas.apply(conn)
                    if case .credited = result {
                        try await conn.execute(
                            "INSERT INTO restore_exchange(state_ref, account_id, restore_key, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (state_ref) DO NOTHING",
                            state.ref.bytes, account, walletKey.bytes, now)
                    }
                    return result
                })
            CrashPoints.reach(.issuerRestoreExchanged)
        }
        return results
    }

    /// The last holders of value on the losing side of each double spend of a note (the second
    /// transfer of its fraud cases), per cheater account: only below an output someone spent
    /// onward (an output nobody carried on may have been refused by its payee), without states
    /// already redeemed (paid at redemption) or held by the cheater's own account. So an honest
    /// wallet paid from a cheater's losing branch, and refused by a payee who had seen the
    /// other branch, is still credited.
    func losingBranchHolders(
        _ conn: any SQLConnection, noteID: [UInt8]
    ) async throws -> [(cheater: Int64, holders: [Int64: Int64])] {
        let cases = try await conn.query(
            "SELECT second_transfer, cheater_account FROM fraud_case WHERE note_id = ? AND second_transfer IS NOT NULL AND cheater_account IS NOT NULL ORDER BY id",
            noteID)
        guard !cases.isEmpty else { return [] }
        var spent: [[UInt8]: (kind: String, transfer: [UInt8]?)] = [:]
        for row in try await conn.query("SELECT state_ref, kind, transfer FROM spent_state WHERE note_id = ?", noteID) {
            spent[try row.blob("state_ref")] = (try row.text("kind"), try row.optionalBlob("transfer"))
        }
        var out: [(cheater: Int64, holders: [Int64: Int64])] = []
        for row in cases {
            guard let bytes = try row.optionalBlob("second_transfer"), let second = try? Transfer(decoding: bytes) else {
                continue
            }
            let cheater = try row.int("cheater_account")
            var stack: [(ref: [UInt8], owner: [UInt8], signer: [UInt8]?, amount: UInt64, depth: Int)] = []
            for (i, output) in second.outputs.enumerated() where spent[second.outputRef(i).bytes]?.kind == "transfer" {
                stack.append((second.outputRef(i).bytes, output.owner.bytes, nil, output.amount, 1))
            }
            var holders: [Int64: Int64] = [:]
            while let next = stack.popLast() {
                guard let seen = spent[next.ref] else {
                    let owner = try await Self.keyOwner(conn, PublicKeyBytes(uncheckedBytes: next.owner))
                    var signer: Int64?
                    if let key = next.signer { signer = try await Self.keyOwner(conn, PublicKeyBytes(uncheckedBytes: key)) }
                    let account = owner ?? signer ?? cheater
                    if account != cheater { holders[account, default: 0] += Int64(clamping: next.amount) }
                    continue
                }
                guard seen.kind == "transfer", let transfer = seen.transfer, next.depth < 64,
                    let t = try? Transfer(decoding: transfer)
                else { continue }
                for (i, output) in t.outputs.enumerated() {
                    stack.append((t.outputRef(i).bytes, output.owner.bytes, next.owner, output.amount, next.depth + 1))
                }
            }
            if !holders.isEmpty { out.append((cheater, holders)) }
        }
        return out
    }

    /// Whether the payee of `payment` (output 0's owner) took a different payer's payment for
    /// the same request: a recorded transfer with the same payee and nonce, signed by another
    /// key, whose output 0 the payee redeemed or spent onward. A wallet takes one payment per
    /// request (§5.2 rule 2), so the payee refused `payment`. Transfers of one payment share
    /// their signer (a payer pays from one key), so they never count against each other.
    static func requestPaidByAnother(_ conn: any SQLConnection, _ payment: Transfer) async throws -> Bool {
        let others = try await conn.query(
            "SELECT transfer FROM spent_state WHERE pays_key = ? AND pays_nonce = ? AND kind = 'transfer'",
            payment.outputs[0].owner.bytes, payment.nonce.bytes)
        for row in others {
            guard let bytes = try row.optionalBlob("transfer"), let other = try? Transfer(decoding: bytes),
                other.hash != payment.hash, other.signerKeyID != payment.signerKeyID
            else { continue }
            if try await conn.queryOne("SELECT 1 AS taken FROM spent_state WHERE state_ref = ?", other.outputRef(0).bytes) != nil
            {
                return true
            }
        }
        return false
    }

    /// Where the unredeemed value of an expired note goes (§5.2 rule 4): one entry per state at
    /// the end of the transfers the issuer has seen, to the account of its owner key, else of
    /// the key that signed it over, else of the purchaser — except a payment its payee refused
    /// (`requestPaidByAnother`), which goes to the signer's account first. Amounts sum to at most `remaining`;
    /// whatever is left goes to the purchaser.
    func lastHolders(
        _ conn: any SQLConnection, noteID: [UInt8], root: [UInt8], rootOwner: [UInt8], purchaser: Int64, remaining: Int64
    )
        async throws -> [(account: Int64, amount: Int64)]
    {
        var spent: [[UInt8]: (kind: String, transfer: [UInt8]?)] = [:]
        for row in try await conn.query("SELECT state_ref, kind, transfer FROM spent_state WHERE note_id = ?", noteID) {
            spent[try row.blob("state_ref")] = (try row.text("kind"), try row.optionalBlob("transfer"))
        }
        // Walk the tree of known transfers from the issued state; each unspent end is a holder.
        // `paying` is the transfer whose output 0 the end is: a payment to a request.
        var leaves: [(owner: [UInt8], signer: [UInt8]?, amount: UInt64, paying: Transfer?)] = []
        var stack: [(ref: [UInt8], owner: [UInt8], signer: [UInt8]?, amount: UInt64, depth: Int, paying: Transfer?)] = []
        if let amount = try await conn.queryOne("SELECT amount FROM issued_note WHERE note_id = ?", noteID)?.uint("amount") {
            stack.append((root, rootOwner, nil, amount, 0, nil))
        }
        while let next = stack.popLast() {
            guard let seen = spent[next.ref] else {
                leaves.append((next.owner, next.signer, next.amount, next.paying))
                continue
            }
            guard seen.kind == "transfer", let bytes = seen.transfer, next.depth < 64,
                let transfer = try? Transfer(decoding: bytes)
            else { continue }
            for (i, output) in transfer.outputs.enumerated() {
                stack.append(
                    (
                        transfer.outputRef(i).bytes, output.owner.bytes, next.owner, output.amount, next.depth + 1,
                        i == 0 ? transfer : nil
                    ))
            }
        }
        var left = remaining
        var out: [(account: Int64, amount: Int64)] = []
        for leaf in leaves where left > 0 {
            let key = try await Self.keyOwner(conn, PublicKeyBytes(uncheckedBytes: leaf.owner))
            var signer: Int64?
            if let key = leaf.signer { signer = try await Self.keyOwner(conn, PublicKeyBytes(uncheckedBytes: key)) }
            let amount = min(Int64(clamping: leaf.amount), left)
            // A payment whose request the payee took another payer's payment for was refused
            // by the payee: it goes back to its payer, not to the payee.
            var refused = false
            if let paying = leaf.paying, signer != nil { refused = try await Self.requestPaidByAnother(conn, paying) }
            out.append((refused ? (signer ?? key ?? purchaser) : (key ?? signer ?? purchaser), amount))
            left -= amount
        }
        if left > 0 { out.append((purchaser, left)) }
        return out
    }
}
