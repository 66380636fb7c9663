import Foundation
import GRDB
import OfflineNotes

// History: the list, one line's detail, and the movements only the issuer's account journal
// knows (online transfers, expiry refunds, fraud charges, funding), imported by `WalletSync`.

/// One posting of the issuer's double-entry journal on this wallet's account
/// (`GET /v1/account/history`). `amount` is signed: positive credits the account.
public struct AccountJournalEntry: Sendable, Equatable {
    /// The journal row id: unique across the issuer, increasing (not strictly in commit order).
    public let id: Int64
    /// `funding`, `purchase`, `redeem`, `send`, `expiry_refund`, `fraud_recovery`, `restore_conflict` …
    public let kind: String
    public let amount: Int64
    /// What the entry is about: a state ref (redeem, fraud), a note id (purchase, expiry
    /// refund), the deposit's reference text (funding), nothing (send).
    public let reference: [UInt8]?
    /// Issuer time, Unix seconds.
    public let createdAt: Int64

    public init(id: Int64, kind: String, amount: Int64, reference: [UInt8]?, createdAt: Int64) {
        self.id = id
        self.kind = kind
        self.amount = amount
        self.reference = reference
        self.createdAt = createdAt
    }
}

/// What one import of account journal entries did.
public struct AccountHistoryImport: Sendable, Equatable {
    /// Entries not seen before.
    public var imported = 0
    /// New history lines (movements the wallet had no line for).
    public var added = 0
    /// Entries tied to a line the wallet already had (a `send-online`, a redemption).
    public var linked = 0

    public init(imported: Int = 0, added: Int = 0, linked: Int = 0) {
        self.imported = imported
        self.added = added
        self.linked = linked
    }
}

/// Points in time as people type them for `--since` / `--until`.
public enum HistoryTime {
    /// The accepted forms, for error messages.
    public static let accepted =
        "an ISO 8601 date (2026-11-23, a UTC day), a date-time with its zone (2026-11-23T10:00:00Z, 2026-11-23T11:00:00+01:00) or a Unix time in seconds (1795430400)"

    /// Parses `text`; nil when it is none of the `accepted` forms. `wholeDay` is true for a
    /// bare date, so an end bound can include that day.
    public static func parse(_ text: String) -> (time: Timestamp, wholeDay: Bool)? {
        let text = text.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.count <= 12, text.allSatisfy({ $0.isASCII && $0.isNumber }) {
            return UInt64(text).map { ($0, false) }
        }
        if text.count == 10, let day = utcDay(text) { return (day, true) }
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds]] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text), date.timeIntervalSince1970 >= 0 {
                return (Timestamp(date.timeIntervalSince1970), false)
            }
        }
        return nil
    }

    /// Midnight UTC of a `YYYY-MM-DD` day; nil for a malformed or impossible date (2026-02-30).
    static func utcDay(_ text: String) -> Timestamp? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]), y >= 1970
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(identifier: "UTC") else { return nil }
        calendar.timeZone = utc
        guard let date = calendar.date(from: DateComponents(year: y, month: m, day: d)) else { return nil }
        // Calendar rolls 02-30 over to 03-02; a round trip refuses it.
        let back = calendar.dateComponents([.year, .month, .day], from: date)
        guard back.year == y, back.month == m, back.day == d else { return nil }
        return Timestamp(date.timeIntervalSince1970)
    }
}

extension Wallet {
    /// History lines, newest first.
    public func history(_ filter: HistoryFilter = HistoryFilter()) throws(WalletError) -> [HistoryEntry] {
        var clauses: [String] = []
        var args: StatementArguments = []
        if let d = filter.direction {
            clauses.append("direction = ?")
            args += [d.rawValue]
        }
        if let s = filter.status {
            clauses.append("status = ?")
            args += [s.rawValue]
        }
        if let m = filter.method {
            clauses.append("method = ?")
            args += [m.rawValue]
        }
        if let s = filter.since {
            clauses.append("created_at >= ?")
            args += [sqlTime(s)]
        }
        if let u = filter.until {
            clauses.append("created_at < ?")
            args += [sqlTime(u)]
        }
        let whereSQL = clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ")
        args += [max(0, min(filter.limit, 1000)), max(0, filter.offset)]
        let sql = "SELECT * FROM history \(whereSQL) ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?"
        return try read { db in try Row.fetchAll(db, sql: sql, arguments: args).map(Self.historyEntry) }
    }

    static func historyEntry(_ row: Row) -> HistoryEntry {
        HistoryEntry(
            id: row["id"],
            direction: HistoryEntry.Direction(rawValue: row["direction"]) ?? .sent,
            counterparty: row["counterparty"], amount: row.amount("amount"), currency: row["currency"],
            online: row["online"], method: row["method"],
            status: HistoryEntry.Status(rawValue: row["status"]) ?? .failed,
            error: row["error"],
            createdAt: Timestamp(clamping: row["created_at"] as Int64),
            updatedAt: Timestamp(clamping: row["updated_at"] as Int64))
    }

    // MARK: Account movements

    /// Records a transfer this wallet just sent online (`IssuerClient.sendOnline` succeeded),
    /// so it shows at once with the recipient's email. The next import ties it to its journal
    /// entry instead of adding a second line. Returns the history id.
    @discardableResult
    public func recordOnlineTransfer(to recipient: String, amount: UInt64) throws(WalletError) -> Int64 {
        let now = env.now()
        return try write { db in
            let currency = try verifier(db).limits.currency
            return try addHistory(
                db, direction: .sent, counterparty: recipient, amount: amount, currency: currency, online: true,
                method: .online, status: .completed, reference: nil, now: now)
        }
    }

    /// Where the next import resumes: the newest journal entry imported and its issuer time.
    public func accountHistoryCursor() throws(WalletError) -> (id: Int64, createdAt: Int64)? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT journal_id, created_at FROM account_entry ORDER BY journal_id DESC LIMIT 1")
                .map { (id: $0["journal_id"], createdAt: $0["created_at"]) }
        }
    }

    /// Records account journal entries, in one transaction, each exactly once (by journal id):
    ///
    /// - `send` out: tied to the oldest untied `send-online` line of the same amount
    ///   (`recordOnlineTransfer`), else a new `sent` line; `send` in: a `received` online line.
    /// - `funding`: `funded`; `expiry_refund`: `refunded` (the wallet's expired copies of that
    ///   note are marked refunded); `fraud_recovery` / `restore_conflict` out: `charged`.
    /// - Escrow settlement: `chain-deposit` in (also one an admin assigned after it arrived
    ///   with an unknown reference, `chain-deposit-assigned`): `funded` ("escrow deposit"); `withdrawal` out:
    ///   `sent` ("your address on the blockchain"); `withdrawal-refused` in: `refunded`.
    /// - `redeem`, and `fraud_recovery` / `restore_conflict` in, credit notes this wallet
    ///   handed in: tied to the `received` line of their payment (never a second line);
    ///   `purchase` is the wallet's own `purchased` line. Neither adds a line: a refresh (redeem
    ///   plus purchase) moves no money, and another wallet of the same account shows its own.
    /// - Any other kind: a `funded` or `charged` line by its sign, so no movement is hidden.
    @discardableResult
    public func importAccountEntries(_ entries: [AccountJournalEntry]) throws(WalletError) -> AccountHistoryImport {
        let now = env.now()
        return try write { db in
            let currency = try verifier(db).limits.currency
            var result = AccountHistoryImport()
            for entry in entries.sorted(by: { $0.id < $1.id }) {
                let seen =
                    try Bool.fetchOne(
                        db, sql: "SELECT EXISTS(SELECT 1 FROM account_entry WHERE journal_id = ?)", arguments: [entry.id])
                    ?? false
                if seen { continue }
                let line = try historyLine(db, for: entry, currency: currency)
                switch line {
                case .added: result.added += 1
                case .linked: result.linked += 1
                case .none: break
                }
                try db.execute(
                    sql: """
                        INSERT INTO account_entry(journal_id, kind, amount, reference, created_at, history_id, imported_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        entry.id, entry.kind, entry.amount, entry.reference?.data, entry.createdAt, line.id, sqlTime(now),
                    ])
                result.imported += 1
            }
            return result
        }
    }

    /// Remembers a fraud case the issuer named for a note state this wallet handed in or spent,
    /// for the detail view.
    public func recordFraudCase(_ caseID: Int64, for state: StateRef) throws(WalletError) {
        try write { db in
            try db.execute(
                sql: "INSERT INTO fraud_case_link(state_ref, case_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
                arguments: [state.bytes.data, caseID])
        }
    }

    private enum ImportedLine {
        case added(Int64), linked(Int64), none
        var id: Int64? {
            switch self {
            case .added(let id), .linked(let id): id
            case .none: nil
            }
        }
    }

    private func historyLine(_ db: Database, for entry: AccountJournalEntry, currency: Currency) throws -> ImportedLine {
        let credit = entry.amount > 0
        func add(_ direction: HistoryEntry.Direction, _ counterparty: String) throws -> ImportedLine {
            // At the issuer's time, so the list and --since place it when the money moved.
            let time = Timestamp(clamping: max(0, entry.createdAt))
            let id = try addHistory(
                db, direction: direction, counterparty: counterparty, amount: entry.amount.magnitude, currency: currency,
                online: true, method: .online, status: .completed, reference: nil, now: time)
            try db.execute(sql: "UPDATE history SET journal_id = ? WHERE id = ?", arguments: [entry.id, id])
            return .added(id)
        }
        let fraudKinds: Set<String> = ["fraud_recovery", "restore_conflict"]
        switch entry.kind {
        case "send" where !credit:
            if let local = try Int64.fetchOne(
                db,
                sql: """
                    SELECT id FROM history WHERE direction = 'sent' AND method = 'online' AND journal_id IS NULL AND amount = ?
                    ORDER BY created_at, id LIMIT 1
                    """,
                arguments: [entry.amount.magnitude])
            {
                try db.execute(sql: "UPDATE history SET journal_id = ? WHERE id = ?", arguments: [entry.id, local])
                return .linked(local)
            }
            // Sent from another device of the account, or the wallet stopped before recording it.
            return try add(.sent, "another account")
        case "send":
            // The journal does not name the sender.
            return try add(.received, "another account")
        case "funding":
            let text = entry.reference.flatMap { String(bytes: $0, encoding: .utf8) } ?? ""
            return try add(.funded, text.isEmpty ? "issuer" : text)
        case "expiry_refund":
            if let note = entry.reference {
                // The issuer swept the note: copies still held here are worth nothing now.
                try db.execute(
                    sql:
                        "UPDATE note_state SET status = 'refunded', updated_at = ? WHERE note_id = ? AND status IN ('available','received') AND expires_at <= ?",
                    arguments: [sqlTime(env.now()), note.data, entry.createdAt])
            }
            return try add(credit ? .refunded : .charged, "issuer")
        case let kind where fraudKinds.contains(kind) && !credit:
            return try add(.charged, "issuer")
        case let kind where kind == "redeem" || fraudKinds.contains(kind):
            guard let ref = entry.reference,
                let line = try Int64.fetchOne(
                    db,
                    sql: """
                        SELECT h.id FROM note_state n JOIN history h ON h.reference = n.received_in AND h.direction = 'received'
                        WHERE n.ref = ?
                        """,
                    arguments: [ref.data])
            else { return .none }
            return .linked(line)
        case "purchase":
            return .none
        // Settlement through an escrow (docs/server.md): a deposit into the escrow, a withdrawal paid
        // out of it to an address, and a withdrawal the escrow refused, whose money came back.
        // The deposit kinds are the issuer's stored spelling (`EscrowJournalKind`), fixed for good.
        case "chain-deposit" where credit, "chain-deposit-assigned" where credit:
            return try add(.funded, "escrow deposit")
        case "withdrawal" where !credit:
            return try add(.sent, "your address on the blockchain")
        case "withdrawal-refused" where credit:
            return try add(.refunded, "refused escrow withdrawal")
        default:
            return try add(credit ? .funded : .charged, "issuer (\(entry.kind))")
        }
    }

}
