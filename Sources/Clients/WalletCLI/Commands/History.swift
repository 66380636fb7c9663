import ArgumentParser
import Foundation
import OfflineNotes
import WalletCore

/// `wallet history` lists (the default) and `wallet history show ID` details one line.
struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Every movement of money, newest first: payments, purchases, online transfers, funding, expiry refunds, fraud charges.",
        discussion:
            "Account movements (online transfers, refunds, charges, funding) appear after `wallet sync` or `send-online`.",
        subcommands: [HistoryList.self, HistoryShow.self], defaultSubcommand: HistoryList.self)
}

struct HistoryList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "History lines, newest first (the default).")
    @OptionGroup var common: CommonOptions
    @Option(help: "\(HistoryEntry.Direction.allCases.map(\.rawValue).joined(separator: ", ")).") var direction:
        HistoryEntry.Direction?
    @Option(help: "pending, completed or failed.") var status: HistoryEntry.Status?
    @Option(help: "qr, bluetooth, tcp or online.") var method: PaymentMethod?
    @Option(help: "Only lines from this time on: a date (2026-11-23, UTC), a date-time (2026-11-23T10:00:00Z) or a Unix time.")
    var since: String?
    @Option(help: "Only lines before this time (a date includes that whole UTC day); same forms as --since.") var until: String?
    @Option(help: "At most this many entries (1 to 1000).") var limit = 50

    func validate() throws {
        guard (1...1000).contains(limit) else { throw ValidationError("--limit must be between 1 and 1000.") }
        for (name, value) in [("--since", since), ("--until", until)] {
            if let value, HistoryTime.parse(value) == nil {
                throw ValidationError("\(name) '\(value)' is not a time. Use \(HistoryTime.accepted).")
            }
        }
    }

    func run() async throws {
        try await WalletCLI.run(common) { out in
            let wallet = try common.home.openWallet()
            let from = since.flatMap(HistoryTime.parse)?.time
            // A bare date as the end bound means "up to the end of that day".
            let to = until.flatMap(HistoryTime.parse).map { $0.wholeDay ? $0.time + 86_400 : $0.time }
            let entries = try wallet.history(
                HistoryFilter(direction: direction, status: status, method: method, since: from, until: to, limit: limit))
            let rows: [[String: Any]] = entries.map {
                [
                    "id": $0.id, "direction": $0.direction.rawValue, "counterparty": $0.counterparty, "amount": $0.amount,
                    "currency": $0.currency, "method": $0.method, "status": $0.status.rawValue, "createdAt": $0.createdAt,
                ]
            }
            let lines = entries.map { e -> String in
                let date = Date(timeIntervalSince1970: TimeInterval(e.createdAt))
                return
                    "\(String(e.id).padding(toLength: 5, withPad: " ", startingAt: 0)) \(date)  \(e.direction.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(money(e).padding(toLength: 14, withPad: " ", startingAt: 0)) \(e.method.padding(toLength: 9, withPad: " ", startingAt: 0)) \(e.status.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(DisplayText.visible(e.counterparty))"
            }
            out.result(
                ["entries": rows],
                human: lines.isEmpty ? "No history yet." : (lines + ["Details: wallet history show ID"]).joined(separator: "\n"))
        }
    }
}

struct HistoryShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "One history line in full: amount, counterparty key id, chain length, receipt, settlement, fraud case.")
    @OptionGroup var common: CommonOptions
    @Argument(help: "The line's id (first column of `wallet history`).") var id: Int64

    func run() async throws {
        try await WalletCLI.run(common) { out in
            let wallet = try common.home.openWallet()
            guard let detail = try wallet.historyDetail(id) else {
                throw CLIError(
                    "unknown_history_entry", "There is no history line \(id). List them with: wallet history", exit: .usage)
            }
            out.result(Self.object(detail), human: Self.text(detail))
        }
    }

    static func object(_ d: HistoryDetail) -> [String: Any] {
        let e = d.entry
        return [
            "id": e.id, "direction": e.direction.rawValue, "status": e.status.rawValue, "method": e.method, "online": e.online,
            "amount": e.amount, "currency": e.currency, "amountText": money(e), "counterparty": e.counterparty,
            "counterpartyKeyId": d.counterpartyKey?.hex ?? NSNull(), "paymentId": d.paymentID?.hex ?? NSNull(),
            "hops": d.hops, "issuerKeyIds": d.issuerKeys.map(\.hex), "receiptHeld": d.receiptHeld,
            "receiptReceivedAt": d.receiptReceivedAt ?? NSNull(),
            "settlement": d.settlement.rawValue, "error": e.error ?? NSNull(),
            "journal": d.journal.map {
                ["id": $0.id, "kind": $0.kind, "amount": $0.amount, "createdAt": $0.createdAt] as [String: Any]
            },
            "fraud": d.fraud.map {
                ["kind": $0.kind, "cheaterKeyId": $0.cheater?.hex ?? NSNull(), "cases": $0.caseIDs] as [String: Any]
            },
            "createdAt": e.createdAt, "updatedAt": e.updatedAt,
        ]
    }

    static func text(_ d: HistoryDetail) -> String {
        let e = d.entry
        let currency = Currency(e.currency)
        let signed = { (v: Int64) in currency.map { MoneyText.format(signed: v, $0) } ?? "\(v) \(e.currency)" }
        let time = { (t: Timestamp) in "\(Date(timeIntervalSince1970: TimeInterval(t)))" }
        var lines = [
            "#\(e.id)  \(e.direction.rawValue)  \(money(e))  \(e.status.rawValue)",
            "when           \(time(e.createdAt))",
            "method         \(e.method)\(e.online ? "" : " (offline)")",
            "counterparty   \(counterparty(d))",
        ]
        if let id = d.paymentID { lines.append("payment        \(id)") }
        if !d.hops.isEmpty {
            lines.append("chain length   \(d.hops.map(String.init).joined(separator: ", ")) hop(s) (\(d.hops.count) note(s))")
        }
        if !d.issuerKeys.isEmpty { lines.append("issuer key     \(d.issuerKeys.map { "\($0)" }.joined(separator: ", "))") }
        if e.direction == .sent || e.direction == .received, d.paymentID != nil {
            lines.append(
                "receipt        \(d.receiptReceivedAt.map { "held, signed at \(time($0))" } ?? (e.status == .pending ? "none yet (the payment is pending)" : "none"))"
            )
        }
        let settlement: String =
            switch d.settlement {
            case .pending: "pending: redeem with wallet sync"
            case .settled: "settled in the account"
            case .spentOnward: "paid onward before redeeming (the next holder settles)"
            case .confirmedByIssuer: "no receipt came back, but the issuer saw the payee redeem it: paid"
            case .expiredRefunded: "the payee never redeemed it before the notes expired; the issuer refunded the value"
            case .none: "nothing to settle here (the payee redeems)"
            }
        lines.append("settlement     \(settlement)")
        for j in d.journal { lines.append("  journal \(j.id)  \(j.kind)  \(signed(j.amount))  \(time(j.createdAt))") }
        if d.fraud.isEmpty { lines.append("fraud          none") }
        for f in d.fraud {
            let what: String =
                switch f.kind {
                case "fraud_recovery":
                    e.direction == .received
                        ? "a note was spent twice; the issuer paid this from the cheater's account"
                        : "this account was charged for a note signed away twice"
                case "restore_conflict": "an older copy of a restored wallet spent the note first; paid from that account"
                case "proof_held": "this wallet caught a double spend and holds the proof"
                default: f.kind
                }
            let cases = f.caseIDs.isEmpty ? "" : " (fraud case \(f.caseIDs.map(String.init).joined(separator: ", ")))"
            lines.append("fraud          \(what)\(f.cheater.map { "; key \($0) signed twice" } ?? "")\(cases)")
        }
        if let error = e.error { lines.append("error          \(error)") }
        return lines.joined(separator: "\n")
    }
}

/// The other side as screens show it: a name when the payee gave one (its control characters
/// made visible), and the key id. (Lines without a name store the first 16 hex digits of the
/// public key, which nothing else shows.)
private func counterparty(_ d: HistoryDetail) -> String {
    let name = DisplayText.visible(d.entry.counterparty)
    guard let key = d.counterpartyKey else { return name }
    let isKeyPrefix = name.count == 16 && name.allSatisfy(\.isHexDigit)
    return isKeyPrefix ? "key \(key)" : "\(name) (key \(key))"
}

/// A history line's amount as money ("30.00 EUR").
private func money(_ e: HistoryEntry) -> String {
    Currency(e.currency).map { MoneyText.format(e.amount, $0) } ?? "\(e.amount) \(e.currency)"
}

extension HistoryEntry.Direction: ExpressibleByArgument {}
extension HistoryEntry.Status: ExpressibleByArgument {}
