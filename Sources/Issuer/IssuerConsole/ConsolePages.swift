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
        var chainRows: [Row] = []
        var chainStatus = "not configured (built-in ledger)"
        var chainClass = ""
        if let chain {
            do {
                let r = try await chain.reconcile()
                chainStatus = r.ok ? "the escrow reconciles" : "the escrow does NOT reconcile"
                chainClass = r.ok ? "ok" : "bad"
                chainRows = [
                    Row(label: "Chain", value: "\(chain.info.chainID), escrow \(chain.info.escrow)"),
                    Row(label: "At block", value: "\(r.block)"),
                    Row(label: "Escrow balance", value: money(r.escrowBalance)),
                    Row(label: "Expected by the books", value: money(r.expected)),
                    Row(label: "Difference", value: money(r.difference)),
                    Row(label: "Deposits not yet credited", value: money(r.uncreditedDeposits)),
                    Row(label: "Paid, not yet settled", value: money(r.paidNotSettled)),
                ]
            } catch {
                chainStatus = "could not reconcile: \(error)"
                chainClass = "bad"
            }
        }
        let ok = o.reconciles
        return page(
            "overview", title: "Overview", session: session, section: "overview",
            [
                "tiles": tiles, "reconRows": recon, "reconClass": ok ? "ok" : "bad",
                "reconStatus": ok ? "reconciled to the cent" : "NOT reconciled", "problems": o.ledgerProblems,
                "hasProblems": !o.ledgerProblems.isEmpty,
                "chainRows": chainRows, "hasChainRows": !chainRows.isEmpty, "chainStatus": chainStatus, "chainClass": chainClass,
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

    // MARK: Fraud cases

    static let caseStatuses: [(value: String, label: String)] = [
        ("", "any"), ("open", "open"), ("recovered", "recovered (later receiver paid from the cheater)"),
        ("restore_conflict", "restore conflict"),
    ]

    static func statusLabel(_ status: String) -> String {
        caseStatuses.first { $0.value == status && !$0.value.isEmpty }.map {
            $0.label.components(separatedBy: " (").first ?? $0.label
        } ?? status
    }

    struct CaseRow {
        let id: Int64
        let opened: String
        let status: String
        let statusLabel: String
        let amount: String
        let cheater: AccountRef?
        let keyID: String
        let firstKind: String
        let beneficiary: AccountRef?
    }

    func fraudCases(_ session: ConsoleSession, query: Form) async throws -> Response {
        let status = query.text("status").flatMap { s in Self.caseStatuses.contains { $0.value == s } ? s : nil }
        let account = query.id("account")
        let cases = try await issuer.fraudCases(matching: FraudCaseFilter(status: status, account: account))
        let refs = await accountRefs(cases.flatMap { [$0.cheaterAccount, $0.beneficiaryAccount] })
        let rows = cases.map { c in
            CaseRow(
                id: c.id, opened: ConsoleFormat.time(c.createdAt), status: c.status, statusLabel: Self.statusLabel(c.status),
                amount: ConsoleFormat.money(c.amount, currency), cheater: c.cheaterAccount.flatMap { refs[$0] },
                keyID: c.cheaterKey.keyID.hex,
                firstKind: c.firstKind == "redeem" ? "redeemed" : "transfer",
                beneficiary: c.beneficiaryAccount.flatMap { refs[$0] })
        }
        return page(
            "cases", title: "Fraud cases", session: session, section: "cases",
            [
                "rows": rows, "account": account.map(String.init) ?? "",
                "statuses": Self.caseStatuses.map {
                    Choice(value: $0.value, label: $0.label, selected: $0.value == (status ?? ""))
                },
            ])
    }

    struct OutputView {
        let index: Int
        let amount: String
        let owner: String
        let account: AccountRef?
        let state: String
    }

    struct TransferView {
        let hash: String
        let input: String
        let signer: String
        let outputs: [OutputView]
        let nonce: String
        let created: String
        let signature: String
        let size: Int
    }

    struct NoteView {
        let id: String
        let issuer: String
        let amount: String
        let owner: String
        let account: AccountRef?
        let issued: String
        let expires: String
        let hops: Int
    }

    struct NamedAccount {
        let id: Int64
        let email: String
        let balance: String
        let frozen: Bool
    }

    struct MovementView {
        let amount: String
        let fromID: Int64
        let from: String
        let toID: Int64
        let to: String
        let kind: String
        let journalID: Int64
        let at: String
    }

    func transferView(_ t: Transfer, owners: [PublicKeyBytes: ConsoleWalletKey]) -> TransferView {
        TransferView(
            hash: t.hash.hex, input: t.input.hex, signer: t.signerKeyID.hex,
            outputs: t.outputs.enumerated().map { i, o in
                OutputView(
                    index: i, amount: ConsoleFormat.money(o.amount, currency), owner: o.owner.keyID.hex,
                    account: owners[o.owner].map { AccountRef(id: $0.accountID, email: $0.email) }, state: t.outputRef(i).hex)
            },
            nonce: t.nonce.hex, created: ConsoleFormat.time(t.createdAt), signature: Hex.encode(t.signature),
            size: t.encoded.count)
    }

    func fraudCase(_ session: ConsoleSession, id: Int64, query: Form) async throws -> Response {
        guard let c = try await issuer.fraudCase(id: id) else { throw notFound("There is no fraud case \(id).") }
        let chain = try? Chain(decoding: c.chain)
        let first = c.firstTransfer.flatMap { try? Transfer(decoding: $0) }
        let second = c.secondTransfer.flatMap { try? Transfer(decoding: $0) }
        let keys =
            [c.cheaterKey] + (chain.map { [$0.note.owner] } ?? [])
            + [first, second].compactMap { $0 }.flatMap { $0.outputs.map(\.owner) }
        let owners = try await issuer.keyOwners(keys)
        var named: NamedAccount?
        if let id = c.cheaterAccount, let a = try? await issuer.account(id) {
            named = NamedAccount(id: a.id, email: a.email, balance: money(a.balance), frozen: a.frozen)
        }
        let movements = try await issuer.caseMovements(
            states: second.map { t in t.outputs.indices.map { t.outputRef($0) } } ?? [])
        let refs = await accountRefs(movements.flatMap { [$0.from, $0.to] })
        let paid: String
        switch (c.status, c.beneficiaryAccount) {
        case ("open", nil):
            paid =
                "Nobody was paid: the case came from a fraud proof that a wallet reported after refusing the payment (or the policy left it open)."
        case (_, let b?):
            paid = "Account \(b) was credited \(ConsoleFormat.money(c.amount, currency))."
        default:
            paid = "Nobody was paid."
        }
        var firstSummary = "The first spend's transfer is not on record."
        var firstRedemption: RedemptionView?
        if c.firstTransfer == nil, let spend = try await issuer.firstSpend(of: c.state) {
            if spend.kind == "redeem" {
                let redeemer = await accountRefs([spend.account])
                firstRedemption = RedemptionView(
                    account: spend.account.flatMap { redeemer[$0] }, accountID: spend.account, amount: money(spend.amount),
                    at: ConsoleFormat.time(spend.createdAt))
            } else {
                firstSummary = "A transfer recorded on \(ConsoleFormat.time(spend.createdAt))."
            }
        } else if c.firstTransfer != nil, first == nil {
            firstSummary = "The recorded transfer could not be decoded."
        }
        let note = chain.map { ch in
            NoteView(
                id: ch.note.noteID.hex, issuer: ch.note.issuerKeyID.hex, amount: ConsoleFormat.money(ch.note.amount, currency),
                owner: ch.note.owner.keyID.hex,
                account: owners[ch.note.owner].map { AccountRef(id: $0.accountID, email: $0.email) },
                issued: ConsoleFormat.time(ch.note.issuedAt),
                expires: ConsoleFormat.time(ch.note.expiresAt), hops: ch.transfers.count)
        }
        var values: [String: Any] = [
            "caseID": c.id, "status": c.status, "statusLabel": Self.statusLabel(c.status),
            "opened": ConsoleFormat.time(c.createdAt),
            "amount": ConsoleFormat.money(c.amount, currency), "state": c.state.hex,
            "cheaterKey": c.cheaterKey.keyID.hex + " (" + c.cheaterKey.hex + ")",
            "movements": movements.map { m in
                MovementView(
                    amount: money(m.amount), fromID: m.from, from: refs[m.from]?.email ?? "account \(m.from)", toID: m.to,
                    to: refs[m.to]?.email ?? "account \(m.to)",
                    kind: m.kind, journalID: m.journalID, at: ConsoleFormat.time(m.createdAt))
            },
            "paidSummary": paid, "firstSummary": firstSummary,
            "secondSummary": c.secondTransfer == nil
                ? "A redemption by the state's holder after it had spent the state (no second transfer)."
                : "The recorded transfer could not be decoded.",
        ]
        let reviews = try await issuer.fraudCaseReviews(c.id)
        let reviewers = await accountRefs(reviews.map(\.actor))
        values["reviews"] = reviews.map { r in
            ReviewView(
                at: ConsoleFormat.time(r.createdAt), who: r.actor.flatMap { reviewers[$0]?.email } ?? "?",
                note: String(r.detail.dropFirst("case \(c.id): ".count)))
        }
        if let named { values["cheater"] = named }
        if let firstRedemption { values["firstRedemption"] = firstRedemption }
        if let note { values["note"] = note }
        if let first { values["first"] = transferView(first, owners: owners) }
        if let second { values["second"] = transferView(second, owners: owners) }
        if let done = query["done"] { values["notice"] = Self.doneNotice(done) }
        return page("case", title: "Fraud case #\(c.id)", session: session, section: "cases", values)
    }

    /// A first spend that was a redemption: who redeemed, linked, for how much, when.
    struct RedemptionView {
        let account: AccountRef?
        let accountID: Int64?
        let amount: String
        let at: String
    }

    struct ReviewView {
        let at: String
        let who: String
        let note: String
    }

    /// Records a review of a fraud case, after a confirmation, as `freeze` does.
    func review(_ session: ConsoleSession, id: Int64, form: Form) async throws -> Response {
        guard try await issuer.fraudCase(id: id) != nil else { throw notFound("There is no fraud case \(id).") }
        let back = "/console/fraud-cases/\(id)"
        let note: String
        do { note = try Issuer.checkAdminReason(form["note"] ?? "") } catch {
            throw Answer(
                response: message(
                    .badRequest, title: "A note is needed", text: "\(error.description) Nothing was recorded.",
                    link: (back, "Back")))
        }
        guard form["confirm"] == "yes" else {
            return page(
                "confirm", title: "Record a review of case #\(id)?", session: session, section: "cases",
                [
                    "question":
                        "Record in the audit log that you reviewed fraud case #\(id): “\(note)”? The case's status does not change.",
                    "action": back + "/review", "fields": [Field(name: "note", value: note)], "button": "Yes, record the review",
                    "cancel": back,
                ])
        }
        try await issuer.reviewFraudCase(id, by: session.accountID, note: note)
        return Self.redirect(back + "?done=reviewed")
    }

    static func doneNotice(_ done: String) -> String {
        switch done {
        case "reviewed": "The review is recorded in the audit log."
        case "frozen": "The account is frozen; the audit log has who did it and why."
        case "unfrozen": "The account is unfrozen; the audit log has who did it and why."
        default: "Done."
        }
    }

    // MARK: Accounts

    struct AccountRow {
        let id: Int64
        let email: String
        let role: String
        let balance: String
        let notes: String
        let frozen: Bool
    }

    func accountRow(_ a: Account) -> AccountRow {
        AccountRow(
            id: a.id, email: a.email, role: a.role, balance: money(a.balance), notes: money(a.outstandingNotes), frozen: a.frozen)
    }

    func accounts(_ session: ConsoleSession, query: Form) async throws -> Response {
        let q = query.text("q") ?? ""
        let rows = try await issuer.searchAccounts(q).map(accountRow)
        return page("accounts", title: "Accounts", session: session, section: "accounts", ["rows": rows, "q": q])
    }

    struct KeyRow {
        let keyID: String
        let publicKey: String
        let registered: String
        /// "retired on DATE: a restore moved its notes to key ID"; nil while in use.
        let retired: String?
    }

    struct HistoryRow {
        let id: Int64
        let at: String
        let kind: String
        let amount: String
        let reference: String
        /// The other account of the movement ("from" for money in, "to" for money out), if any.
        let direction: String
        let counterparty: AccountRef?
    }

    func account(_ session: ConsoleSession, id: Int64, query: Form) async throws -> Response {
        let a: Account
        do { a = try await issuer.account(id) } catch {
            guard case .accountNotFound = error else { throw error }
            throw notFound("There is no account \(id).")
        }
        guard a.role != "system" else { throw notFound("Account \(id) is a system ledger account; see the overview.") }
        let retired = try await issuer.retiredWalletKeys(account: id)
        let keys = try await issuer.walletKeys(account: id).map { key in
            KeyRow(
                keyID: key.publicKey.keyID.hex, publicKey: key.publicKey.hex, registered: ConsoleFormat.time(key.registeredAt),
                retired: retired[key.publicKey].map {
                    "retired on \(ConsoleFormat.time($0.at)): a restore moved its notes to key \($0.replacedBy.keyID.hex); what its old device pays now is a restore conflict"
                })
        }
        let entries = try await issuer.history(account: id, limit: 50, before: nil, kind: nil)
        let others = try await issuer.counterparties(account: id, journalIDs: entries.map(\.id))
        let refs = await accountRefs(Array(others.values))
        let history = entries.map {
            HistoryRow(
                id: $0.id, at: ConsoleFormat.time($0.createdAt), kind: $0.kind, amount: money($0.amount),
                reference: $0.reference.map { Hex.encode(Array($0.prefix(16))) } ?? "", direction: $0.amount < 0 ? "to" : "from",
                counterparty: others[$0.id].flatMap { refs[$0] })
        }
        var values: [String: Any] = [
            "id": a.id, "email": a.email, "role": a.role, "balance": money(a.balance), "notes": money(a.outstandingNotes),
            "frozen": a.frozen,
            "canFreeze": (try? a.checkFreezable()) != nil, "keys": keys, "history": history,
        ]
        if let done = query["done"] { values["notice"] = Self.doneNotice(done) }
        return page("account", title: "Account \(a.id): \(a.email)", session: session, section: "accounts", values)
    }

    struct Field {
        let name: String
        let value: String
    }

    /// Freeze or unfreeze with a required reason, in two steps: the first post shows what will
    /// happen and asks again; only the second (`confirm=yes`) acts, and writes the audit log.
    func freeze(_ session: ConsoleSession, id: Int64, form: Form) async throws -> Response {
        let frozen = form["frozen"] != "0"
        let a: Account
        do { a = try await issuer.account(id) } catch {
            guard case .accountNotFound = error else { throw error }
            throw notFound("There is no account \(id).")
        }
        do { try a.checkFreezable() } catch {
            throw Answer(response: message(.forbidden, title: "Refused", text: error.description))
        }
        let caseID = form.id("case")
        let back = caseID.map { "/console/fraud-cases/\($0)" } ?? "/console/accounts/\(id)"
        let reason: String
        do { reason = try Issuer.checkAdminReason(form["reason"] ?? "") } catch {
            throw Answer(
                response: message(
                    .badRequest, title: "A reason is needed", text: "\(error.description) Nothing was changed.",
                    link: (back, "Back")))
        }
        guard form["confirm"] == "yes" else {
            let verb = frozen ? "Freeze" : "Unfreeze"
            let effect =
                frozen
                ? "It will no longer be able to buy notes, send money online or withdraw until an operator unfreezes it."
                : "It will be able to buy notes, send and withdraw again."
            var fields = [Field(name: "frozen", value: frozen ? "1" : "0"), Field(name: "reason", value: reason)]
            if let caseID { fields.append(Field(name: "case", value: String(caseID))) }
            return page(
                "confirm", title: "\(verb) account \(id)?", session: session, section: "accounts",
                [
                    "question": "\(verb) account \(id) (\(a.email))? \(effect) Reason for the audit log: “\(reason)”",
                    "action": "/console/accounts/\(id)/freeze", "fields": fields,
                    "button": "Yes, \(verb.lowercased()) account \(id)", "cancel": back,
                ])
        }
        try await issuer.setFrozen(frozen, account: id, by: session.accountID, reason: reason)
        return Self.redirect(back + "?done=" + (frozen ? "frozen" : "unfrozen"))
    }

    // MARK: Debtors, audit, settings

    struct DebtorRow {
        let id: Int64
        let email: String
        let owes: String
        let frozen: Bool
    }

    func debtors(_ session: ConsoleSession) async throws -> Response {
        let debtors = try await issuer.accountsInDebt()
        let total = debtors.reduce(Int64(0)) { $0 &+ $1.balance.magnitude.clampedToInt64 }
        return page(
            "debtors", title: "Debtors", session: session, section: "debtors",
            [
                "rows": debtors.map {
                    DebtorRow(id: $0.id, email: $0.email, owes: money(Int64(clamping: $0.balance.magnitude)), frozen: $0.frozen)
                },
                "hasRows": !debtors.isEmpty, "total": money(total),
            ])
    }

    struct AuditRow {
        let id: Int64
        let at: String
        let actor: AccountRef?
        let action: String
        let detail: String
    }

    func audit(_ session: ConsoleSession, query: Form) async throws -> Response {
        let actions = try await issuer.auditActions()
        let action = query.text("action").flatMap { actions.contains($0) ? $0 : nil }
        let actor = query.id("actor")
        let text = query.text("q")
        let filter = AuditFilter(action: action, actor: actor, text: text, before: query.id("before"))
        let entries = try await issuer.auditLog(matching: filter, limit: 100)
        let refs = await accountRefs(entries.map(\.actor))
        var older: String?
        if entries.count == 100, let last = entries.last {
            older =
                "/console/audit?before=\(last.id)" + (action.map { "&action=" + Form.encode($0) } ?? "")
                + (actor.map { "&actor=\($0)" } ?? "") + (text.map { "&q=" + Form.encode($0) } ?? "")
        }
        var values: [String: Any] = [
            "rows": entries.map { e in
                AuditRow(
                    id: e.id, at: ConsoleFormat.time(e.createdAt),
                    actor: e.actor.flatMap { refs[$0] ?? AccountRef(id: $0, email: "account \($0)") }, action: e.action,
                    detail: e.detail)
            },
            "actions": [Choice(value: "", label: "any", selected: action == nil)]
                + actions.map { Choice(value: $0, label: $0, selected: $0 == action) },
            "actorFilter": actor.map(String.init) ?? "", "q": text ?? "",
        ]
        if let older { values["older"] = older }
        return page("audit", title: "Audit log", session: session, section: "audit", values)
    }

    struct Group {
        let name: String
        let rows: [Row]
    }

    struct KeysetRow {
        let keyID: String
        let from: String
        let until: String
        let state: String
    }

    func settingsPage(_ session: ConsoleSession) async throws -> Response {
        let c = issuer.config
        let now = UInt64(max(0, Date().timeIntervalSince1970))
        var groups = [
            Group(
                name: "Money and notes",
                rows: [
                    Row(label: "Currency", value: "\(c.currency.code) (\(c.currency.minorUnitDigits) minor-unit digits)"),
                    Row(label: "Most a wallet holds offline", value: ConsoleFormat.money(c.maxOfflineHolding, currency)),
                    Row(label: "Transfers before a refresh", value: "\(c.maxHops)"),
                    Row(label: "Note lifetime", value: ConsoleFormat.duration(c.noteLifetime)),
                    Row(label: "Redemption grace after expiry", value: ConsoleFormat.duration(c.redemptionGrace)),
                    Row(label: "Double-spend policy", value: c.policy.rawValue),
                    Row(label: "Development funding", value: c.devFunding ? "ON (development only)" : "off"),
                ]),
            Group(
                name: "Limits and sessions",
                rows: [
                    Row(
                        label: "Logins a minute per address",
                        value: "\(settings.loginsPerMinutePerIP) (and 10 per email per 5 minutes)"),
                    Row(label: "Writes a minute per address", value: "\(settings.writesPerMinutePerIP)"),
                    Row(label: "Writes a minute per account", value: "\(settings.writesPerMinutePerAccount)"),
                    Row(
                        label: "Console session",
                        value:
                            "\(ConsoleFormat.duration(UInt64(settings.sessionLifetime))) at most, \(ConsoleFormat.duration(UInt64(settings.idleTimeout))) idle"
                    ),
                    Row(
                        label: "Console cookies Secure",
                        value: settings.secureCookies ? "yes" : "no (plain HTTP: use it on loopback or through an SSH tunnel)"),
                ]),
            Group(
                name: "Authority",
                rows: [
                    Row(label: "Authority key id", value: issuer.keyring.authority.publicKey.keyID.hex),
                    Row(label: "Limits signed", value: ConsoleFormat.time(issuer.limits.issuedAt)),
                ]),
            Group(
                name: "Database schema",
                rows: try await issuer.schemaVersions().map {
                    Row(label: "Version \($0.version)", value: "applied \(ConsoleFormat.time($0.appliedAt))")
                }),
        ]
        if let chain {
            groups.append(
                Group(
                    name: "Chain settlement",
                    rows: [
                        Row(label: "Chain id", value: "\(chain.info.chainID)"), Row(label: "Escrow", value: chain.info.escrow),
                        Row(label: "Token", value: chain.info.token),
                        Row(label: "Confirmations", value: "\(chain.info.confirmations)"),
                    ]))
        }
        let keys = issuer.keyring.issuing.sorted { $0.validFrom < $1.validFrom }.map { k in
            KeysetRow(
                keyID: k.signer.publicKey.keyID.hex, from: ConsoleFormat.time(k.validFrom),
                until: ConsoleFormat.time(k.validUntil),
                state: k.validFrom > now ? "not yet valid" : (k.validUntil <= now ? "expired" : "valid"))
        }
        return page(
            "settings", title: "Settings", session: session, section: "settings",
            [
                "groups": groups, "keys": keys, "sequence": issuer.keyset.sequence,
                "keysetSigned": ConsoleFormat.time(issuer.keyset.issuedAt),
            ])
    }
}

extension UInt64 {
    var clampedToInt64: Int64 { Int64(clamping: self) }
}
