import Foundation
import Hummingbird
import IssuerCore
import OfflineNotes

/// The accounts pages (list, one account, freezing), the debtors, the audit log and the settings.
extension OperatorConsole {
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
        if let escrow {
            groups.append(
                Group(
                    name: "Escrow settlement",
                    rows: [
                        Row(label: "Chain id", value: "\(escrow.info.chainID)"), Row(label: "Escrow", value: escrow.info.escrow),
                        Row(label: "Token", value: escrow.info.token),
                        Row(label: "Confirmations", value: "\(escrow.info.confirmations)"),
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
