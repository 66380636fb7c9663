import Foundation
import GRDB
import OfflineNotes

/// Everything the wallet knows about one history line: `wallet history show ID`, the app's
/// detail screen.
public struct HistoryDetail: Sendable, Equatable {
    /// Whether the money of the line is final in the issuer account.
    public enum Settlement: String, Sendable, Codable {
        /// Received offline and not yet redeemed.
        case pending
        /// In the account: redeemed, or an account movement to begin with.
        case settled
        /// Received offline and paid onward before being redeemed: the next holder settles.
        case spentOnward = "spent-onward"
        /// A payment sent without a receipt, which the issuer saw the payee redeem or spend.
        case confirmedByIssuer = "confirmed-by-issuer"
        /// A payment sent whose notes expired unredeemed; the issuer refunded the value.
        case expiredRefunded = "expired-refunded"
        /// Nothing for this wallet to settle (a payment sent: the payee redeems).
        case none
    }

    /// A journal entry behind the line.
    public struct JournalLine: Sendable, Equatable {
        public let id: Int64
        public let kind: String
        public let amount: Int64
        public let createdAt: Timestamp
    }

    /// A double spend touching the line.
    public struct Fraud: Sendable, Equatable {
        /// `fraud_recovery` (paid from, or charged to, the account of the key that signed twice),
        /// `restore_conflict` (an old copy of a restored wallet paid first), or `proof_held`
        /// (this wallet caught the double spend offline and holds the proof).
        public let kind: String
        /// The key that signed twice, when the wallet knows it.
        public let cheater: KeyID?
        /// The issuer's fraud cases, when the wallet was told (`recordFraudCase`).
        public let caseIDs: [Int64]

        public init(kind: String, cheater: KeyID?, caseIDs: [Int64]) {
            self.kind = kind
            self.cheater = cheater
            self.caseIDs = caseIDs
        }
    }

    public let entry: HistoryEntry
    /// The payment id, for offline payments.
    public let paymentID: Digest32?
    /// The other side's key id, as screens show keys (`PublicKeyBytes.keyID`); nil for
    /// account movements and purchases.
    public let counterpartyKey: KeyID?
    /// Chain length (transfers since issue) of each note involved, as its holder now has it.
    public let hops: [Int]
    /// The issuer keys that signed the notes involved (the root of each chain's proof), sorted;
    /// empty for account movements and purchases.
    public let issuerKeys: [KeyID]
    /// When the payee signed the receipt: for a payment sent, the receipt this wallet holds
    /// (nil while none came back); for a payment received, the receipt it handed out.
    public let receiptReceivedAt: Timestamp?
    public let settlement: Settlement
    /// The issuer account's journal entries for this line (after `sync` imported them).
    public let journal: [JournalLine]
    public let fraud: [Fraud]

    public var receiptHeld: Bool { receiptReceivedAt != nil }
}

extension Wallet {
    /// Everything known about history line `id`; nil when there is no such line.
    public func historyDetail(_ id: Int64) throws(WalletError) -> HistoryDetail? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM history WHERE id = ?", arguments: [id]) else { return nil }
            let entry = Self.historyEntry(row)
            let journal = try Row.fetchAll(
                db, sql: "SELECT * FROM account_entry WHERE history_id = ? ORDER BY journal_id", arguments: [id]
            ).map {
                HistoryDetail.JournalLine(
                    id: $0["journal_id"], kind: $0["kind"], amount: $0["amount"],
                    createdAt: Timestamp(clamping: $0["created_at"] as Int64))
            }
            let reference = row.bytes("reference")
            let paymentID = reference.count == Digest32.byteCount ? Digest32(uncheckedBytes: reference) : nil
            var parts = DetailParts()
            switch entry.direction {
            case .sent where paymentID != nil:
                if let paymentID { parts = try sentParts(db, paymentID) }
            case .received where paymentID != nil:
                if let paymentID { parts = try receivedParts(db, paymentID) }
            case .purchased, .funded, .refunded, .charged, .sent, .received:
                parts.settlement = .settled
                parts = try accountParts(db, journal, parts)
            }
            // The journal's own fraud entries (a received payment paid from the cheater, a charge).
            for line in journal where line.kind == "fraud_recovery" || line.kind == "restore_conflict" {
                parts.fraud.append(.init(kind: line.kind, cheater: nil, caseIDs: try caseIDs(db, parts.states)))
            }
            return HistoryDetail(
                entry: entry, paymentID: paymentID, counterpartyKey: parts.counterparty, hops: parts.hops,
                issuerKeys: parts.issuerKeys, receiptReceivedAt: parts.receiptAt, settlement: parts.settlement, journal: journal,
                fraud: Self.merged(parts.fraud))
        }
    }

    private struct DetailParts {
        var counterparty: KeyID?
        var hops: [Int] = []
        var issuerKeys: [KeyID] = []
        var receiptAt: Timestamp?
        var settlement: HistoryDetail.Settlement = .none
        var fraud: [HistoryDetail.Fraud] = []
        /// The note states involved (spent by, or received in, the payment).
        var states: [[UInt8]] = []
    }

    private func sentParts(_ db: Database, _ id: Digest32) throws -> DetailParts {
        var parts = DetailParts()
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM outgoing_payment WHERE id = ?", arguments: [id.bytes.data])
        else { return parts }
        let request = try PaymentRequest(decoding: row.bytes("request"))
        let bundle = try PaymentBundle(decoding: row.bytes("bundle"))
        parts.counterparty = request.payee.keyID
        parts.hops = bundle.chains.map(\.hops)
        parts.issuerKeys = Array(Set(bundle.chains.map(\.note.issuerKeyID))).sorted()
        let receipt = row.bytes("receipt")
        if !receipt.isEmpty { parts.receiptAt = try Receipt(decoding: receipt).receivedAt }
        switch (row["resolution"] as String?).flatMap(PendingResolution.init(rawValue:)) {
        case .confirmedByIssuer: parts.settlement = .confirmedByIssuer
        case .expiredUnredeemed: parts.settlement = .expiredRefunded
        case nil: break
        }
        // The states this payment spent: a charge for one of them means it was spent twice.
        parts.states = bundle.chains.compactMap { $0.transfers.last?.input.bytes }
        for state in parts.states {
            for kind in try String.fetchAll(
                db, sql: "SELECT kind FROM account_entry WHERE reference = ? AND amount < 0", arguments: [state.data])
            {
                parts.fraud.append(.init(kind: kind, cheater: nil, caseIDs: try caseIDs(db, [state])))
            }
        }
        parts.fraud += try heldProofs(db, parts.states)
        return parts
    }

    private func receivedParts(_ db: Database, _ id: Digest32) throws -> DetailParts {
        var parts = DetailParts()
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM received_payment WHERE id = ?", arguments: [id.bytes.data])
        else { return parts }
        let bundle = try PaymentBundle(decoding: row.bytes("bundle"))
        parts.counterparty = bundle.chains.first?.transfers.last?.signerKeyID
        parts.issuerKeys = Array(Set(bundle.chains.map(\.note.issuerKeyID))).sorted()
        parts.receiptAt = try Receipt(decoding: row.bytes("receipt")).receivedAt
        let held = try Row.fetchAll(
            db, sql: "SELECT ref, hops, status FROM note_state WHERE received_in = ? ORDER BY ref", arguments: [id.bytes.data])
        parts.hops = held.isEmpty ? bundle.chains.map(\.hops) : held.map { $0["hops"] }
        parts.states = held.map { $0.bytes("ref") }
        let statuses = Set(held.map { $0["status"] as String })
        parts.settlement =
            statuses.contains(NoteStatus.received.rawValue)
            ? .pending
            : statuses.contains(NoteStatus.settled.rawValue)
                ? .settled
                : statuses.isEmpty ? .none : .spentOnward
        if !(try caseIDs(db, parts.states)).isEmpty {
            parts.fraud.append(.init(kind: "fraud_recovery", cheater: nil, caseIDs: try caseIDs(db, parts.states)))
        }
        return parts
    }

    /// An account movement: the notes its journal entries name (an expired note refunded, a
    /// state charged for).
    private func accountParts(_ db: Database, _ journal: [HistoryDetail.JournalLine], _ start: DetailParts) throws -> DetailParts
    {
        var parts = start
        for line in journal {
            guard
                let reference = try Data.fetchOne(
                    db, sql: "SELECT reference FROM account_entry WHERE journal_id = ?", arguments: [line.id])
            else { continue }
            let column = line.kind == "expiry_refund" ? "note_id" : "ref"
            let notes = try Row.fetchAll(
                db, sql: "SELECT ref, hops FROM note_state WHERE \(column) = ? ORDER BY ref", arguments: [reference])
            parts.hops += notes.map { $0["hops"] }
            parts.states += notes.map { $0.bytes("ref") }
            // A state this wallet never held can still have fraud cases recorded against it.
            if notes.isEmpty, column == "ref" { parts.states.append(Array(reference)) }
        }
        parts.fraud += try heldProofs(db, parts.states)
        return parts
    }

    private func heldProofs(_ db: Database, _ states: [[UInt8]]) throws -> [HistoryDetail.Fraud] {
        var found: [HistoryDetail.Fraud] = []
        for state in states {
            for cheater in try Data.fetchAll(
                db, sql: "SELECT cheater FROM fraud_proof WHERE state_ref = ?", arguments: [state.data])
            {
                found.append(
                    .init(
                        kind: "proof_held", cheater: PublicKeyBytes(bytes: Array(cheater))?.keyID,
                        caseIDs: try caseIDs(db, [state])))
            }
        }
        return found
    }

    private func caseIDs(_ db: Database, _ states: [[UInt8]]) throws -> [Int64] {
        var ids: Set<Int64> = []
        for state in states {
            ids.formUnion(
                try Int64.fetchAll(db, sql: "SELECT case_id FROM fraud_case_link WHERE state_ref = ?", arguments: [state.data]))
        }
        return ids.sorted()
    }

    /// One fraud line per kind and cheater, with their case ids together.
    private static func merged(_ fraud: [HistoryDetail.Fraud]) -> [HistoryDetail.Fraud] {
        var out: [HistoryDetail.Fraud] = []
        for f in fraud {
            if let i = out.firstIndex(where: { $0.kind == f.kind && $0.cheater == f.cheater }) {
                out[i] = .init(kind: f.kind, cheater: f.cheater, caseIDs: Array(Set(out[i].caseIDs + f.caseIDs)).sorted())
            } else {
                out.append(f)
            }
        }
        return out
    }
}
