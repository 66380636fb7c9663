import CrashPoints
import Foundation
import GRDB
import OfflineNotes

extension Wallet {
    /// Creates and stores a payment request to show the payer.
    /// - Parameters:
    ///   - amount: minor units; 0 lets the payer choose.
    ///   - payeeName: the name the payer's screen shows (at most
    ///     `PaymentRequest.maxNameLength` bytes).
    ///   - expiresIn: seconds the request stays payable.
    ///   - hints: where payers reach this device for a nearby session.
    ///   - sessionKey: the ephemeral key of a nearby session (`NearbyReceiveFlow` makes one);
    ///     nil for a request paid by QR only.
    public func createRequest(
        amount: UInt64, payeeName: String = "", expiresIn: UInt64 = 600, hints: [TransportHint] = [],
        sessionKey: PublicKeyBytes? = nil
    ) throws(WalletError) -> PaymentRequest {
        let now = env.now()
        let currency = try limits().currency
        let request: PaymentRequest
        do {
            request = try PaymentRequest(
                payee: publicKey, currency: currency, amount: amount, nonce: env.nonce(),
                expiresAt: now + expiresIn, payeeName: payeeName, hints: hints, sessionKey: sessionKey)
        } catch {
            throw .rejected(error)
        }
        try write { db in
            try db.execute(
                sql: "INSERT INTO payment_request(nonce, request, status, created_at) VALUES (?, ?, 'open', ?)",
                arguments: [request.nonce.bytes.data, request.encoded.data, sqlTime(now)])
        }
        return request
    }

    /// Verifies an incoming payment for one of this wallet's requests, stores it and returns
    /// the signed receipt. Receiving the same payment again returns the same receipt (re-signed
    /// for a new nearby session's transcript); any other payment for a paid request is refused.
    public func receive(
        _ bundleBytes: [UInt8], for nonce: Nonce, method: PaymentMethod = .qr, transcriptHash: Digest32? = nil
    ) throws(WalletError) -> ReceivedPayment {
        let now = env.now()
        let bundle: PaymentBundle
        do { bundle = try PaymentBundle(decoding: bundleBytes) } catch { throw .rejected(error) }

        // Cheap checks and the signature work happen outside the write transaction.
        let loaded: (PaymentRequest, NoteVerifier, ReceivedPayment?) = try read { db in
            guard
                let data = try Data.fetchOne(
                    db, sql: "SELECT request FROM payment_request WHERE nonce = ?", arguments: [nonce.bytes.data])
            else { throw WalletError.unknownRequest(nonce) }
            return (try PaymentRequest(decoding: Array(data)), try self.verifier(db), try self.received(db, nonce: nonce))
        }
        let (request, verifier, previous) = loaded
        if let previous {
            guard previous.id == bundle.paymentID else { throw WalletError.requestAlreadyPaid }
            if let transcriptHash, previous.receipt.transcriptHash != transcriptHash {
                // The same payment through a new session (the payer lost our first reply):
                // a receipt bound to this session, for the same payment and amount.
                do {
                    let receipt = try Receipt.sign(
                        paymentID: previous.id, nonce: previous.nonce, currency: previous.currency, amount: previous.amount,
                        receivedAt: previous.receipt.receivedAt, transcriptHash: transcriptHash, payee: identity.signer)
                    return ReceivedPayment(
                        id: previous.id, nonce: previous.nonce, amount: previous.amount, currency: previous.currency,
                        receipt: receipt)
                } catch {
                    throw .storage("could not sign a receipt: \(error)")
                }
            }
            return previous
        }
        let verified: VerifiedPayment
        do {
            let isKnown: (StateRef) -> Bool = { ref in
                let known: Bool? = try? self.db.read { db in try Self.isKnown(db, ref) }
                return known ?? false
            }
            verified = try verifier.verifyPayment(bundle, request: request, now: now, isKnownState: isKnown)
        } catch {
            if case .doubleSpend(let proof) = error {
                try record(proof, now: now)
                CrashPoints.reach(.walletReceiveProofRecorded)
                throw .doubleSpendDetected(proof)
            }
            throw .rejected(error)
        }

        do {
            let received = try writeReceived(verified, request: request, method: method, transcriptHash: transcriptHash, now: now)
            CrashPoints.reach(.walletReceiveCommitted)
            return received
        } catch {
            if case .doubleSpendDetected(let proof) = error {
                try record(proof, now: now)
                CrashPoints.reach(.walletReceiveProofRecorded)
            }
            throw error
        }
    }

    private func writeReceived(
        _ verified: VerifiedPayment, request: PaymentRequest, method: PaymentMethod, transcriptHash: Digest32?,
        now: Timestamp
    ) throws(WalletError) -> ReceivedPayment {
        try write { db in
            // Re-checked inside the transaction: another receive may have won the race.
            if let previous = try received(db, nonce: request.nonce) {
                guard previous.id == verified.paymentID else { throw WalletError.requestAlreadyPaid }
                return previous
            }
            let limits = try verifier(db).limits
            let holding = try Self.holding(db, now: now)
            let wouldHold = Amount.sum([holding, verified.amount]) ?? Amount.max
            guard wouldHold <= limits.maxOfflineHolding else {
                throw WalletError.holdingLimitExceeded(
                    limit: limits.maxOfflineHolding, wouldHold: wouldHold, currency: limits.currency)
            }
            for state in verified.received {
                guard try !Self.isKnown(db, state.ref) else { throw WalletError.rejected(.duplicatePayment) }
                try Self.recordSpends(db, state)
                _ = try insertState(db, state, status: .received, origin: "received", receivedIn: verified.paymentID, now: now)
            }
            let receipt = try Receipt.sign(
                paymentID: verified.paymentID, nonce: request.nonce, currency: verified.currency,
                amount: verified.amount, receivedAt: now, transcriptHash: transcriptHash, payee: identity.signer)
            try db.execute(
                sql: """
                    INSERT INTO received_payment(id, request_nonce, bundle, receipt, amount, currency, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    verified.paymentID.bytes.data, request.nonce.bytes.data, verified.bundle.encoded.data,
                    receipt.encoded.data, sqlAmount(verified.amount), verified.currency.code, sqlTime(now),
                ])
            try db.execute(
                sql: "UPDATE payment_request SET status = 'paid' WHERE nonce = ?", arguments: [request.nonce.bytes.data])
            let payer = verified.received.first?.spends.last.map { $0.owner.keyID.hex } ?? "unknown"
            try addHistory(
                db, direction: .received, counterparty: payer, amount: verified.amount, currency: verified.currency,
                online: method == .online, method: method, status: .completed, reference: verified.paymentID, now: now)
            try env.failpoint(.receiveBeforeCommit)
            return ReceivedPayment(
                id: verified.paymentID, nonce: request.nonce, amount: verified.amount, currency: verified.currency,
                receipt: receipt)
        }
    }

    /// Keeps a fraud proof, in its own transaction: the payment is refused, the evidence is not lost.
    private func record(_ proof: FraudProof, now: Timestamp) throws(WalletError) {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO fraud_proof(state_ref, cheater, first_transfer, second_transfer, proving_chain, detected_at)
                    VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                    """,
                arguments: [
                    proof.state.bytes.data, (proof.cheater?.bytes ?? []).data, proof.first.encoded.data,
                    proof.second.encoded.data, proof.chain.encoded.data, sqlTime(now),
                ])
        }
    }

    func received(_ db: Database, nonce: Nonce) throws -> ReceivedPayment? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT * FROM received_payment WHERE request_nonce = ?", arguments: [nonce.bytes.data])
        else { return nil }
        return ReceivedPayment(
            id: Digest32(uncheckedBytes: row.bytes("id")), nonce: nonce, amount: row.amount("amount"),
            currency: try storedCurrency(row), receipt: try Receipt(decoding: row.bytes("receipt")))
    }

    /// A state this wallet holds or held: receiving it again would be a replay.
    static func isKnown(_ db: Database, _ ref: StateRef) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM note_state WHERE ref = ?)", arguments: [ref.bytes.data]) ?? false
    }
}
