import Foundation
import Hummingbird
import IssuerCore
import OfflineNotes

/// The fraud-case pages: the list with its filters, one case with its proof and movements, and the review.
extension OperatorConsole {
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
}
