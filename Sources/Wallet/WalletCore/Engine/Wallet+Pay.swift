import CrashPoints
import Foundation
import GRDB
import OfflineNotes

extension Wallet {
    /// Pays `request` offline and returns the bytes to send.
    ///
    /// Selecting notes, signing the transfers and marking their inputs spent happen in one
    /// database transaction that commits before any byte is returned. Asking again for the same
    /// request returns the same bytes, so an interrupted payment is resent, never re-signed
    /// (docs/design.md §2.4, §2.6).
    ///
    /// - Parameters:
    ///   - request: the payee's request, as scanned or fetched.
    ///   - amount: required for an open-amount request, otherwise must be nil or equal.
    ///   - method: how the bytes travel, for the history (QR by default).
    public func pay(
        _ request: PaymentRequest, amount: UInt64? = nil, method: PaymentMethod = .qr
    ) throws(WalletError)
        -> OutgoingPayment
    {
        let now = env.now()
        let payment = try write { db -> OutgoingPayment in
            if let existing = try outgoing(db, nonce: request.nonce) {
                guard existing.request == request, amount == nil || amount == existing.amount else {
                    throw WalletError.requestNonceReused
                }
                return existing
            }
            let total = try Self.amountToPay(request, amount)
            guard request.payee != publicKey else { throw WalletError.cannotPaySelf }
            guard now < request.expiresAt else { throw WalletError.requestExpired }
            let verifier = try verifier(db)
            guard request.currency == verifier.limits.currency else {
                throw WalletError.rejected(.wrongCurrency(expected: verifier.limits.currency, found: request.currency))
            }

            let coins = try spendableCoins(db, currency: request.currency, maxHops: verifier.limits.maxHops, now: now)
            guard let picks = CoinSelection.select(coins.map(\.coin), amount: total) else {
                throw try shortfall(db, coins: coins.map(\.coin), requested: total, currency: request.currency, now: now)
            }
            try env.failpoint(.paySelected)

            let chainsByRef = Dictionary(coins.map { ($0.coin.ref, $0.chain) }, uniquingKeysWith: { a, _ in a })
            var payChains: [Chain] = []
            var changeStates: [VerifiedState] = []
            for pick in picks {
                guard let chain = chainsByRef[pick.coin.ref] else { throw WalletError.storage("selected note vanished") }
                var outputs = [TransferOutput(owner: request.payee, amount: pick.pay)]
                if pick.change > 0 { outputs.append(TransferOutput(owner: publicKey, amount: pick.change)) }
                let transfer = try Transfer.sign(
                    input: pick.coin.ref, outputs: outputs, nonce: request.nonce, createdAt: now,
                    signer: identity.signer)
                payChains.append(chain.appending(transfer, holding: 0))
                if pick.change > 0 {
                    do {
                        changeStates.append(try verifier.verify(chain.appending(transfer, holding: 1), now: now))
                    } catch let e as VerificationError {
                        throw WalletError.rejected(e)
                    }
                }
            }
            try env.failpoint(.paySigned)

            // Verify our own bundle as the payee will: a bug here must never leave the device.
            let bundle = try PaymentBundle(chains: payChains)
            let verified: VerifiedPayment
            do { verified = try verifier.verifyPayment(bundle, request: request, now: now) } catch let e as VerificationError {
                throw WalletError.rejected(e)
            }

            let historyID = try addHistory(
                db, direction: .sent, counterparty: Self.counterparty(request), amount: total, currency: request.currency,
                online: method == .online, method: method, status: .pending, reference: verified.paymentID, now: now)
            for (pick, chain) in zip(picks, payChains) {
                guard let transfer = chain.transfers.last, let spent = chainsByRef[pick.coin.ref] else {
                    throw WalletError.storage("a signed payment lost its input")
                }
                // The primary key on state_ref refuses a second transfer of the same state.
                try db.execute(
                    sql: "INSERT INTO spend_edge(state_ref, transfer_hash, transfer, proving_chain) VALUES (?, ?, ?, ?)",
                    arguments: [
                        pick.coin.ref.bytes.data, transfer.hash.bytes.data, transfer.encoded.data,
                        spent.encoded.data,
                    ])
                try db.execute(
                    sql: """
                        UPDATE note_state SET status = 'reserved', spent_by = ?, updated_at = ?
                        WHERE ref = ? AND status IN ('available','received') AND needs_online_check = 0
                        """,
                    arguments: [verified.paymentID.bytes.data, sqlTime(now), pick.coin.ref.bytes.data])
                guard db.changesCount == 1 else { throw WalletError.storage("note state changed during payment") }
            }
            for change in changeStates {
                _ = try insertState(db, change, status: .available, origin: "change", now: now)
            }
            try db.execute(
                sql: """
                    INSERT INTO outgoing_payment(id, request_nonce, request, bundle, amount, currency, method, status,
                                                 history_id, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, 'signed', ?, ?, ?)
                    """,
                arguments: [
                    verified.paymentID.bytes.data, request.nonce.bytes.data, request.encoded.data, bundle.encoded.data,
                    sqlAmount(total), request.currency.code, method.rawValue, historyID, sqlTime(now), sqlTime(now),
                ])
            try env.failpoint(.payBeforeCommit)
            return OutgoingPayment(
                id: verified.paymentID, request: request, bundle: bundle.encoded, amount: total,
                currency: request.currency, method: method, status: .signed, receipt: nil)
        }
        do { try env.failpoint(.payAfterCommit) } catch { throw .storage("interrupted after commit: \(error)") }
        CrashPoints.reach(.walletPayCommitted)
        return payment
    }

    /// Records the payee's receipt: the payment is complete and its inputs are spent.
    /// Idempotent for the same receipt.
    @discardableResult
    public func confirm(receipt bytes: [UInt8]) throws(WalletError) -> OutgoingPayment {
        let receipt: Receipt
        do { receipt = try Receipt(decoding: bytes) } catch { throw .rejected(error) }
        let now = env.now()
        let confirmed = try write { db -> OutgoingPayment in
            guard let payment = try outgoing(db, nonce: receipt.nonce) else {
                throw WalletError.unknownPayment(receipt.nonce)
            }
            do {
                try receipt.verify(for: payment.request, paymentID: payment.id, amount: payment.amount)
            } catch let e as VerificationError {
                throw WalletError.rejected(e)
            }
            if payment.status == .completed, try resolution(db, payment.id) == nil { return payment }
            // A receipt that arrives after the issuer settled the payment still completes it properly.
            try complete(db, payment, receipt: bytes, resolution: nil, history: .completed, error: nil, now: now)
            return OutgoingPayment(
                id: payment.id, request: payment.request, bundle: payment.bundle, amount: payment.amount,
                currency: payment.currency, method: payment.method, status: .completed, receipt: receipt)
        }
        CrashPoints.reach(.walletConfirmCommitted)
        return confirmed
    }

    /// Marks a payment complete: no longer reserved, its inputs spent, its history line final.
    func complete(
        _ db: Database, _ payment: OutgoingPayment, receipt: [UInt8]?, resolution: PendingResolution?,
        history status: HistoryEntry.Status, error: String?, now: Timestamp
    ) throws {
        try db.execute(
            sql:
                "UPDATE outgoing_payment SET status = 'completed', receipt = COALESCE(?, receipt), resolution = ?, updated_at = ? WHERE id = ?",
            arguments: [receipt?.data, resolution?.rawValue, sqlTime(now), payment.id.bytes.data])
        try db.execute(
            sql: "UPDATE note_state SET status = 'spent', updated_at = ? WHERE spent_by = ? AND status = 'reserved'",
            arguments: [sqlTime(now), payment.id.bytes.data])
        try db.execute(
            sql: """
                UPDATE history SET status = ?, error = ?, updated_at = ?
                WHERE id = (SELECT history_id FROM outgoing_payment WHERE id = ?)
                """,
            arguments: [status.rawValue, error, sqlTime(now), payment.id.bytes.data])
    }

    func resolution(_ db: Database, _ id: Digest32) throws -> PendingResolution? {
        try String.fetchOne(db, sql: "SELECT resolution FROM outgoing_payment WHERE id = ?", arguments: [id.bytes.data])
            .flatMap(PendingResolution.init(rawValue:))
    }

    /// The payment made for a request, if any: what to resend after an interruption.
    public func outgoingPayment(for nonce: Nonce) throws(WalletError) -> OutgoingPayment? {
        try read { db in try outgoing(db, nonce: nonce) }
    }

    /// Payments signed but not yet receipted.
    public func pendingPayments() throws(WalletError) -> [OutgoingPayment] {
        try read { db in
            try Data.fetchAll(db, sql: "SELECT request_nonce FROM outgoing_payment WHERE status = 'signed' ORDER BY created_at")
                .compactMap { try outgoing(db, nonce: Nonce(uncheckedBytes: Array($0))) }
        }
    }

    func outgoing(_ db: Database, nonce: Nonce) throws -> OutgoingPayment? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT * FROM outgoing_payment WHERE request_nonce = ?", arguments: [nonce.bytes.data])
        else { return nil }
        let receiptBytes = row.bytes("receipt")
        return OutgoingPayment(
            id: Digest32(uncheckedBytes: row.bytes("id")),
            request: try PaymentRequest(decoding: row.bytes("request")),
            bundle: row.bytes("bundle"), amount: row.amount("amount"),
            currency: try storedCurrency(row),
            method: PaymentMethod(rawValue: row["method"]) ?? .qr,
            status: OutgoingPayment.Status(rawValue: row["status"]) ?? .signed,
            receipt: receiptBytes.isEmpty ? nil : try Receipt(decoding: receiptBytes))
    }

    struct StoredCoin {
        let coin: Coin
        let chain: Chain
    }

    func spendableCoins(_ db: Database, currency: Currency, maxHops: Int, now: Timestamp) throws -> [StoredCoin] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT ref, chain, amount, hops, expires_at FROM note_state
                WHERE status IN ('available','received') AND currency = :currency AND \(Self.payableCondition)
                """,
            arguments: ["currency": currency.code, "payable": sqlTime(now &+ env.expiryMargin), "maxHops": maxHops])
        return try rows.map { row in
            StoredCoin(
                coin: Coin(
                    ref: StateRef(uncheckedBytes: row.bytes("ref")), amount: row.amount("amount"), hops: row["hops"],
                    expiresAt: Timestamp(clamping: row["expires_at"] as Int64)),
                chain: try Chain(decoding: row.bytes("chain")))
        }
    }

    /// The most helpful error when the payable notes do not cover `requested`: the value that
    /// would cover it once synced (restored, or waiting for a refresh) says to sync; value
    /// spread over too many notes for one payment says so; otherwise there is not enough.
    func shortfall(_ db: Database, coins: [Coin], requested: UInt64, currency: Currency, now: Timestamp) throws -> WalletError {
        let spendable = Amount.sum(coins.map(\.amount)) ?? Amount.max
        if spendable >= requested {
            let largest = Amount.sum(coins.map(\.amount).sorted(by: >).prefix(PaymentBundle.maxChains).map { $0 }) ?? Amount.max
            return .tooManyNotes(largestPayment: largest, currency: currency)
        }
        let balance = try balanceLines(db, now: now)
        if Amount.sum([spendable, balance.needsOnlineCheck]).map({ $0 >= requested }) == true, balance.needsOnlineCheck > 0 {
            return .needsOnlineCheck(balance.needsOnlineCheck, currency: currency)
        }
        if Amount.sum([spendable, balance.needsOnlineCheck, balance.needsRefresh]).map({ $0 >= requested }) == true,
            balance.needsRefresh > 0
        {
            return .needsRefresh(balance.needsRefresh, currency: currency)
        }
        return .insufficientFunds(available: spendable, requested: requested, currency: currency)
    }

    static func amountToPay(_ request: PaymentRequest, _ amount: UInt64?) throws(WalletError) -> UInt64 {
        if request.isOpenAmount {
            guard let amount else { throw .amountRequired }
            guard amount > 0, amount <= Amount.max else { throw .invalidAmount("must be between 1 and 2^63 − 1 minor units") }
            return amount
        }
        if let amount, amount != request.amount {
            let c = request.currency
            throw .invalidAmount(
                "the request asks for \(Amount.format(request.amount, currency: c)) \(c), not \(Amount.format(amount, currency: c)) \(c)"
            )
        }
        return request.amount
    }

    static func counterparty(_ request: PaymentRequest) -> String {
        request.payeeName.isEmpty ? request.payee.keyID.hex : request.payeeName
    }
}

/// Currency codes in the database were validated on the way in; a bad one means a damaged file.
func storedCurrency(_ row: Row) throws -> Currency {
    guard let currency = Currency(row["currency"] as String) else {
        throw WalletError.corruptFile("invalid currency code in the wallet database")
    }
    return currency
}
