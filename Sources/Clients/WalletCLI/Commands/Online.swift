import ArgumentParser
import Foundation
import OfflineNotes
import WalletCore
import WalletFlows
import WalletSync

struct Purchase: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Buy offline notes with money from the issuer account.")
    @OptionGroup var common: CommonOptions
    @Argument(help: "Amount, e.g. 100.00.") var amount: String

    func run() async throws {
        try await WalletCLI.run(common) { out in
            try await common.home.online { session in
                let wallet = session.wallet
                let currency = try wallet.limits().currency
                let value = try MoneyText.parse(amount, currency: currency)
                out.note("Buying \(MoneyText.format(value, currency)) of notes…")
                let bought = try await session.purchase(value)
                let account = try await session.client.account()
                let spendable = try wallet.balance().spendable
                out.result(
                    ["bought": bought, "spendable": spendable, "settled": account.balance, "currency": currency.code],
                    human:
                        "Bought \(MoneyText.format(bought, currency)). Offline spendable \(MoneyText.format(spendable, currency)); account \(MoneyText.format(signed: account.balance, currency))."
                )
            }
        }
    }
}

struct Fund: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add money to the account (development servers started with --dev-funding only).")
    @OptionGroup var common: CommonOptions
    @Argument(help: "Amount, e.g. 100.00.") var amount: String

    func run() async throws {
        try await WalletCLI.run(common) { out in
            try await common.home.online { session in
                let wallet = session.wallet
                let currency = try wallet.limits().currency
                try await session.client.fund(try MoneyText.parse(amount, currency: currency))
                let account = try await session.client.account()
                out.result(
                    ["settled": account.balance], human: "Account balance \(MoneyText.format(signed: account.balance, currency))."
                )
            }
        }
    }
}

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Go online: exchange restored notes, announce and settle payments without a receipt, redeem received notes, refresh old ones, report fraud, auto-recharge."
    )
    @OptionGroup var common: CommonOptions
    @Option(help: "Refresh own notes expiring within this many hours (1 to 720).") var refreshWithin: UInt64 = 24

    func validate() throws {
        guard (1...720).contains(refreshWithin) else {
            throw ValidationError("--refresh-within must be between 1 and 720 hours.")
        }
    }

    func run() async throws {
        try await WalletCLI.run(common) { out in
            try await common.home.online { session in
                let wallet = session.wallet
                let currency = try wallet.limits().currency
                let m = { (v: UInt64) in MoneyText.format(v, currency) }
                // The first step names only what this wallet has: most never restored a backup.
                let states = try wallet.states()
                let restoredWaiting = !(try wallet.restoredStates()).isEmpty
                let heldWaiting = states.contains { $0.needsOnlineCheck && !$0.restored }
                let firstStep = [
                    restoredWaiting ? "exchanging notes restored from a backup" : nil,
                    heldWaiting ? "checking notes held after a lost refresh" : nil,
                ].compactMap { $0 }.joined(separator: "; ")
                let report: SyncReport
                var incomplete: SyncIncomplete?
                do {
                    report = try await session.sync(refreshWithin: refreshWithin * 3600) { progress in
                        if progress.step == .restoredNotes {
                            if !firstStep.isEmpty { out.note("\(progress.index)/\(progress.count) \(firstStep)…") }
                        } else {
                            out.note("\(progress.index)/\(progress.count) \(progress.label)")
                        }
                    }
                } catch let partial as SyncIncomplete {
                    // The other steps ran: say what they did, then what failed.
                    report = partial.report
                    incomplete = partial
                }
                let restored = report.restored
                let checked = (checked: report.heldChecked, spent: report.heldTaken)
                let announced = report.announced
                let settled = report.settlement
                let redemption = report.redemption
                let refreshed = report.refreshed
                let recharged = report.recharged
                let balance = report.balance
                let proofs = report.fraudProofs
                let fraudCases = report.fraudCases
                let account = report.account
                var lines = [
                    "Redeemed \(redemption.redeemed) note(s): \(m(redemption.credited)) credited; account now \(MoneyText.format(signed: account.balance, currency))."
                ]
                if restored.exchanged > 0 {
                    lines.append(
                        "Exchanged \(restored.exchanged) restored note(s) for \(m(restored.value)) of fresh notes under this wallet's new key."
                    )
                }
                if restored.alreadySpent > 0 {
                    lines.append("\(restored.alreadySpent) restored note(s) had already been spent by the old device; retired.")
                }
                if restored.alreadyExchanged > 0 {
                    lines.append(
                        "\(restored.alreadyExchanged) restored note(s) were already exchanged by another restore of this backup (or redeemed into the account); retired, nothing bought."
                    )
                }
                if restored.expired > 0 {
                    lines.append("\(restored.expired) restored note(s) had expired; the issuer refunds them.")
                }
                for refusal in restored.refused { lines.append("Restored note refused by the issuer: \(refusal)") }
                if checked.checked > 0 {
                    lines.append(
                        "Checked \(checked.checked) note(s) held after an interrupted refresh: \(checked.spent) were taken by the issuer, the rest are spendable again."
                    )
                }
                if announced > 0 { lines.append("Announced \(announced) unconfirmed transfer(s).") }
                if settled.confirmed > 0 {
                    lines.append(
                        "\(settled.confirmed) payment(s) without a receipt confirmed by the issuer: the payee redeemed them.")
                }
                if settled.expired > 0 {
                    lines.append(
                        "\(settled.expired) payment(s) were never redeemed before their notes expired; the issuer refunded them: to yours if the payee took another payment for the request or has no account, else to the payee's."
                    )
                }
                if settled.stillPending > 0 {
                    lines.append("\(settled.stillPending) payment(s) still wait for the payee to redeem or to send the receipt.")
                }
                if refreshed > 0 { lines.append("Refreshed \(m(refreshed)) of old notes.") }
                if recharged > 0 { lines.append("Auto-recharge bought \(m(recharged)).") }
                for warning in report.warnings { lines.append("Warning: \(warning)") }
                if balance.expired > 0 {
                    lines.append(
                        "\(m(balance.expired)) of notes expired offline; the issuer refunds them to the last holder it knows.")
                }
                for refusal in redemption.refused { lines.append("Refused by the issuer: \(refusal.code) \(refusal.reason)") }
                let conflicts = try Self.restoreConflicts(wallet, among: fraudCases)
                let fraud = fraudCases.filter { !conflicts.contains($0) }
                let listed = { (cases: [Int64]) in cases.map(String.init).joined(separator: ", ") }
                let received = conflicts.filter { redemption.fraudCases.contains($0) }.sorted()
                let own = conflicts.subtracting(received).sorted()
                if !received.isEmpty {
                    lines.append(
                        "Restore conflict (case \(listed(received))): money you received had also been spent by another copy of the payer's "
                            + "wallet, restored from a backup. The issuer paid you from the payer's account. This is not fraud; nothing to do."
                    )
                }
                if !own.isEmpty {
                    lines.append(
                        "Restore conflict (case \(listed(own))): a note was spent both by this wallet and by another copy restored from a "
                            + "backup; the payee was paid from your account. Not fraud, but a second restore conflict after another restore is, "
                            + "and freezes the account: stop using the old copy."
                    )
                }
                if !fraud.isEmpty {
                    lines.append(
                        "Double spend: the issuer holds fraud case(s) \(listed(fraud)) against the key that signed twice.")
                }
                for proof in proofs {
                    lines.append(
                        "Fraud proof held: key \(proof.cheater.map { "\($0.keyID)" } ?? "?") signed two transfers of one note.")
                }
                if account.frozen {
                    lines.append(
                        "This account is FROZEN (after a double spend charged to it, or by the issuer's operator): purchases and withdrawals are refused. Contact the issuer."
                    )
                }
                var object: [String: Any] = [
                    "redeemed": redemption.redeemed, "credited": redemption.credited, "settled": account.balance,
                    "frozen": account.frozen, "announced": announced, "refreshed": refreshed, "recharged": recharged,
                    "restoredExchanged": restored.exchanged, "restoredValue": restored.value,
                    "restoredAlreadySpent": restored.alreadySpent, "restoredAlreadyExchanged": restored.alreadyExchanged,
                    "restoredExpired": restored.expired,
                    "checkedHeld": checked.checked, "heldTaken": checked.spent,
                    "paymentsConfirmed": settled.confirmed, "paymentsExpired": settled.expired,
                    "paymentsPending": settled.stillPending,
                    "expired": balance.expired, "fraudCases": fraudCases, "restoreConflicts": conflicts.sorted(),
                    "fraudProofs": proofs.map { $0.cheater?.hex ?? "" },
                    "refused": redemption.refused.map { ["code": $0.code, "reason": $0.reason] },
                    "spendable": balance.spendable,
                ]
                if !report.warnings.isEmpty { object["warnings"] = report.warnings }
                if let incomplete, let first = incomplete.failures.first {
                    object["failedSteps"] = incomplete.failures.map {
                        ["step": $0.step.rawValue, "code": $0.error.code, "message": $0.error.description]
                    }
                    let cause = CLIError.from(first.error)
                    out.partial(
                        object, human: lines.joined(separator: "\n"),
                        error: CLIError(cause.code, incomplete.description, exit: cause.exit))
                    throw ExitCode(cause.exit.rawValue)
                }
                out.result(object, human: lines.joined(separator: "\n"))
            }
        }
    }
}

extension Sync {
    /// Of `cases`, those the issuer booked as restore conflicts (an older copy of a restored
    /// wallet spent a note first), as the history the sync imported from the account shows.
    static func restoreConflicts(_ wallet: Wallet, among cases: [Int64]) throws -> Set<Int64> {
        guard !cases.isEmpty else { return [] }
        var found: Set<Int64> = []
        for entry in try wallet.history(HistoryFilter(limit: 500)) {
            for fraud in try wallet.historyDetail(entry.id)?.fraud ?? [] where fraud.kind == "restore_conflict" {
                found.formUnion(fraud.caseIDs)
            }
        }
        return found.intersection(cases)
    }
}

struct SendOnline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send-online", abstract: "Pay another account from the settled balance (online, no notes move).")
    @OptionGroup var common: CommonOptions
    @Argument(help: "Recipient's account email.") var to: String
    @Argument(help: "Amount, e.g. 5.00.") var amount: String

    func run() async throws {
        try await WalletCLI.run(common) { out in
            try await common.home.online { session in
                let wallet = session.wallet
                let currency = try wallet.limits().currency
                let value = try MoneyText.parse(amount, currency: currency)
                let account = try await session.sendOnline(to: to, amount: value)
                out.result(
                    ["to": to, "amount": value, "settled": account.balance],
                    human:
                        "Sent \(MoneyText.format(value, currency)) to \(to). Account now \(MoneyText.format(signed: account.balance, currency))."
                )
            }
        }
    }
}

struct Settings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or change settings: auto-recharge (applied when online, one purchase at a time) and the issuer URL.")
    @OptionGroup var common: CommonOptions
    @Option(help: "Recharge when offline spendable falls below this amount.") var autoRechargeBelow: String?
    @Option(help: "…up to this amount.") var autoRechargeTo: String?
    @Flag(help: "Turn auto-recharge off.") var autoRechargeOff = false
    @Option(help: "Issuer URL.") var server: String?

    func run() async throws {
        try await WalletCLI.run(common) { out in
            let home = common.home
            let wallet = try home.openWallet()
            try await home.withLock {
                var config = try home.loadConfig()
                let currency = try? wallet.limits().currency
                if let server {
                    guard URL(string: server)?.scheme != nil else {
                        throw CLIError("invalid_server", "'\(server)' is not a URL.", exit: .usage)
                    }
                    config.server = server
                }
                if autoRechargeOff { config.autoRecharge = nil }
                if autoRechargeBelow != nil || autoRechargeTo != nil {
                    guard let currency else {
                        throw CLIError("not_configured", "Sync once first so the wallet knows its currency.", exit: .refused)
                    }
                    guard let below = autoRechargeBelow, let to = autoRechargeTo else {
                        throw CLIError("invalid_setting", "Give both --auto-recharge-below and --auto-recharge-to.", exit: .usage)
                    }
                    let threshold = try MoneyText.parse(below, currency: currency)
                    let target = try MoneyText.parse(to, currency: currency)
                    let limit = try? wallet.limits().maxOfflineHolding
                    do {
                        config.autoRecharge = try AutoRechargeRule(
                            validatingThreshold: threshold, target: target, maxOfflineHolding: limit)
                    } catch AutoRechargeRuleError.targetNotAboveThreshold {
                        throw CLIError("invalid_setting", "The target must be above the threshold.", exit: .usage)
                    } catch AutoRechargeRuleError.aboveHoldingLimit(let limit) {
                        throw CLIError(
                            "invalid_setting",
                            "The target is above the offline holding limit \(MoneyText.format(limit, currency)).", exit: .usage)
                    }
                }
                try home.saveConfig(config)
                var object: [String: Any] = ["server": config.server ?? NSNull(), "email": config.email ?? NSNull()]
                var human = "server         \(config.server ?? "none")\naccount        \(config.email ?? "not logged in")"
                if let rule = config.autoRecharge, let currency {
                    object["autoRecharge"] = ["below": rule.threshold, "to": rule.target]
                    human +=
                        "\nauto-recharge  below \(MoneyText.format(rule.threshold, currency)) → up to \(MoneyText.format(rule.target, currency)) (on the next sync)"
                } else {
                    object["autoRecharge"] = NSNull()
                    human += "\nauto-recharge  off"
                }
                out.result(object, human: human)
            }
        }
    }
}
