import Foundation
import OfflineNotes
import WalletAPI
import WalletCore

extension IssuerClient {
    /// How far back, in issuer seconds, an import re-reads entries older than the newest one
    /// it has. Journal ids come from a sequence: on PostgreSQL an entry can commit after one
    /// with a higher id was already read, so stopping at the last id could skip it forever.
    /// Re-reading is free: the wallet keeps each entry once, by journal id.
    public static let accountHistoryOverlap: Int64 = 600

    /// Brings the account's journal into the wallet's history: online transfers sent and
    /// received, expiry refunds, fraud charges, funding; redemptions are tied to the payments
    /// they settle (`Wallet.importAccountEntries` says which kind becomes what).
    ///
    /// Pages newest-first through `GET /v1/account/history` back to the last entry imported
    /// (less `accountHistoryOverlap`), then records everything in one wallet transaction:
    /// a crash or a lost connection leaves the wallet as before, and the next call starts over.
    @discardableResult
    public func importAccountHistory(into wallet: Wallet) async throws -> AccountHistoryImport {
        let cursor = try wallet.accountHistoryCursor()
        var entries: [AccountJournalEntry] = []
        var before: Int64?
        paging: while true {
            let page: Components.Schemas.History
            switch try await call({ try await client.getHistory(query: .init(limit: 200, before: before)) }) {
            case .ok(let ok): page = try ok.body.json
            case .default(let status, let problem): throw IssuerClientError(status, try? problem.body.applicationProblemJson)
            }
            for item in page.entries {
                if let cursor, item.id <= cursor.id, item.createdAt < cursor.createdAt - Self.accountHistoryOverlap {
                    break paging
                }
                var reference: [UInt8]?
                if let text = item.reference {
                    guard let bytes = Base64URL.decode(text) else {
                        throw IssuerClientError(
                            code: "bad_history", "The server sent a malformed journal reference (entry \(item.id)).")
                    }
                    reference = bytes
                }
                entries.append(
                    AccountJournalEntry(
                        id: item.id, kind: item.kind, amount: item.amount, reference: reference, createdAt: item.createdAt))
            }
            guard let next = page.nextBefore, !page.entries.isEmpty else { break }
            before = next
        }
        return try wallet.importAccountEntries(entries)
    }
}
