import Foundation
import Hummingbird
import IssuerCore
import OfflineNotes

/// The console's pages: each reads through `Issuer` and hands the templates plain text.
extension OperatorConsole {
    var currency: Currency { issuer.config.currency }
    func money(_ minor: Int64) -> String { ConsoleFormat.money(minor, currency) }

    struct Row {
        let label: String
        let value: String
    }

    struct Tile {
        let label: String
        let value: String
        let hint: String?
    }

    struct Choice {
        let value: String
        let label: String
        let selected: Bool
    }

    /// An account shown as a link.
    struct AccountRef {
        let id: Int64
        let email: String
    }

    // Template keys at a page's top level must not repeat a row's optional field: swift-mustache
    // looks a nil field up in the enclosing context (the audit filter's "actor" once filled the
    // issuer's own lines with an empty link).

    /// Emails of accounts by id, read once per page.
    func accountRefs(_ ids: [Int64?]) async -> [Int64: AccountRef] {
        var refs: [Int64: AccountRef] = [:]
        for id in Set(ids.compactMap { $0 }) {
            if let a = try? await issuer.account(id) { refs[id] = AccountRef(id: id, email: a.email) }
        }
        return refs
    }

    // MARK: Overview

    static let ranges: [(key: String, label: String, bucket: Int64, count: Int)] = [
        ("30d", "last 30 days, per day", 86_400, 30), ("24h", "last 24 hours, per hour", 3_600, 24),
        ("12w", "last 12 weeks, per week", 7 * 86_400, 12),
    ]

    func overview(_ session: ConsoleSession, query: Form) async throws -> Response {
        let o = try await issuer.consoleOverview()
        let range = Self.ranges.first { $0.key == query["range"] } ?? Self.ranges[0]
        let redemptions = try await issuer.redemptionSeries(bucketSeconds: range.bucket, count: range.count)
        let cases = try await issuer.fraudCaseSeries(bucketSeconds: range.bucket, count: range.count)
        let tiles = [
            Tile(label: "Money in (net)", value: money(o.moneyIn), hint: "funded, less paid out"),
            Tile(label: "Settled balances", value: money(o.settledBalances), hint: "\(o.accounts) accounts"),
            Tile(label: "Float", value: money(o.float), hint: "value held in offline notes"),
            // Debts come from double spends (charged to the cheater, who is frozen) and from
            // restore conflicts (an honest owner's old device paid what a restore exchanged).
            Tile(label: "Debts", value: money(o.debts), hint: "negative balances: double spends and restore conflicts"),
            Tile(label: "Pending withdrawals", value: money(o.pendingWithdrawals), hint: nil),
            Tile(label: "Unclaimed deposits", value: money(o.unclaimed), hint: nil),
            Tile(label: "Frozen accounts", value: "\(o.frozenAccounts)", hint: nil),
            Tile(label: "Fraud cases", value: "\(o.fraudCases)", hint: "\(o.openFraudCases) open"),
        ]
        let recon = [
            Row(label: "Money in (net)", value: money(o.moneyIn)),
            Row(label: "= settled balances", value: money(o.settledBalances)),
            Row(label: "+ float", value: money(o.float)),
            Row(label: "+ pending withdrawals", value: money(o.pendingWithdrawals)),
            Row(label: "+ unclaimed deposits", value: money(o.unclaimed)),
            Row(label: "what the books owe", value: money(o.owed)),
            Row(label: "difference", value: money(o.moneyIn &- o.owed)),
            Row(label: "float against unredeemed notes", value: "\(money(o.float)) / \(money(o.unredeemedNotes))"),
        ]
        var escrowRows: [Row] = []
        var escrowStatus = "not configured (built-in ledger)"
        var escrowClass = ""
        if let escrow {
            do {
                let r = try await escrow.reconcile()
                escrowStatus = r.ok ? "the escrow reconciles" : "the escrow does NOT reconcile"
                escrowClass = r.ok ? "ok" : "bad"
                escrowRows = [
                    Row(label: "Chain", value: "\(escrow.info.chainID), escrow \(escrow.info.escrow)"),
                    Row(label: "At block", value: "\(r.block)"),
                    Row(label: "Escrow balance", value: money(r.escrowBalance)),
                    Row(label: "Expected by the books", value: money(r.expected)),
                    Row(label: "Difference", value: money(r.difference)),
                    Row(label: "Deposits not yet credited", value: money(r.uncreditedDeposits)),
                    Row(label: "Paid, not yet settled", value: money(r.paidNotSettled)),
                ]
            } catch {
                escrowStatus = "could not reconcile: \(error)"
                escrowClass = "bad"
            }
        }
        let ok = o.reconciles
        return page(
            "overview", title: "Overview", session: session, section: "overview",
            [
                "tiles": tiles, "reconRows": recon, "reconClass": ok ? "ok" : "bad",
                "reconStatus": ok ? "reconciled to the cent" : "NOT reconciled", "problems": o.ledgerProblems,
                "hasProblems": !o.ledgerProblems.isEmpty,
                "escrowRows": escrowRows, "hasEscrowRows": !escrowRows.isEmpty, "escrowStatus": escrowStatus,
                "escrowClass": escrowClass,
                "ranges": Self.ranges.map { Choice(value: $0.key, label: $0.label, selected: $0.key == range.key) }.map {
                    ["key": $0.value, "label": $0.label, "current": $0.selected]
                },
                "rangeLabel": range.label,
                "redemptionCountChart": redemptions.chart(
                    title: "Redemptions credited, \(range.label)", amounts: false, currency: currency
                ).svg,
                "redemptionAmountChart": redemptions.chart(
                    title: "Value redeemed, \(range.label)", amounts: true, currency: currency
                ).svg,
                "fraudChart": cases.chart(title: "Fraud cases opened, \(range.label)", amounts: false, currency: currency).svg,
            ])
    }
}

extension UInt64 {
    var clampedToInt64: Int64 { Int64(clamping: self) }
}
