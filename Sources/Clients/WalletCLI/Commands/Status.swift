import ArgumentParser
import Foundation
import OfflineNotes
import WalletCore
import WalletFlows
import WalletSync

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Balances: settled (issuer account); offline total and its parts (spendable, needs sync, needs online check, expired, reserved); unsettled; risk budget left; last sync."
    )
    @OptionGroup var common: CommonOptions
    @Flag(help: "Do not contact the issuer; show offline balances only.") var offline = false

    /// Where values start: after the longest label ("  needs online check") and a space.
    static let labelWidth = 22

    func run() async throws {
        try await WalletCLI.run(common) { out in
            let home = common.home
            let wallet = try home.openWallet()
            let limits = try wallet.limits()
            let currency = limits.currency
            let balance = try wallet.balance()
            let config = try home.loadConfig()
            var settled: Int64?
            var frozen = false
            var online = false
            let loggedIn = config.refreshToken != nil
            // Why the settled balance is unknown, when it is.
            var unknown =
                offline
                ? "not asked: --offline"
                : loggedIn ? "issuer not reachable" : "not logged in: wallet login\(common.walletArgument) EMAIL"
            if !offline, loggedIn {
                do {
                    try await home.withLock {
                        let session = try await home.resume(wallet)
                        let account = try await session.client.account()
                        settled = account.balance
                        frozen = account.frozen
                        online = true
                    }
                } catch let e as WalletFlowError {
                    throw e  // the login is gone: say so, do not pretend to be offline
                } catch let e as CLIError where e.exit == .login {
                    throw e
                } catch {
                    let cause = CLIError.from(error)
                    if cause.exit != .offline { unknown = "the issuer answered with an error" }
                    out.note(
                        "\(cause.exit == .offline ? "Issuer not reachable" : "The issuer refused"): showing offline balances (\(cause.description))"
                    )
                }
            }
            let m = { (v: UInt64) in MoneyText.format(v, currency) }
            // One column for every value, whatever the label's indent and length.
            func row(_ label: String, _ value: String, _ note: String = "") -> String {
                label.padding(toLength: max(Self.labelWidth, label.count + 1), withPad: " ", startingAt: 0) + value
                    + (note.isEmpty ? "" : "   (\(note))")
            }
            // The first lines partition the total (Balance's contract); "of which" lines do not add.
            var rows = [
                (online ? "● online" : "○ \(loggedIn ? "offline" : "not logged in")")
                    + (frozen ? "  — ACCOUNT FROZEN (a double spend was charged to it)" : ""),
                row("settled (account)", settled.map { MoneyText.format(signed: $0, currency) } ?? "unknown (\(unknown))"),
                row("offline total", m(balance.total)),
                row(
                    "  spendable", m(balance.spendable),
                    balance.largestPayment < balance.spendable
                        ? "at most \(m(balance.largestPayment)) in one payment: too many small notes" : ""),
            ]
            if balance.needsRefresh > 0 {
                rows.append(
                    row(
                        "  needs sync", m(balance.needsRefresh), "at the hop limit or about to expire: run wallet sync to refresh"
                    ))
            }
            if balance.needsOnlineCheck > 0 {
                rows.append(
                    row("  needs online check", m(balance.needsOnlineCheck), "restored from a backup: wallet sync exchanges it"))
            }
            if balance.expired > 0 {
                rows.append(row("  expired", m(balance.expired), "refunded by the issuer to the last holder it knows"))
            }
            rows.append(row("  reserved", m(balance.reserved), "sent, receipt not yet back"))
            rows.append(row("unsettled", m(balance.unsettled), "of the above, received offline: redeem with wallet sync"))
            rows.append(
                row("risk budget left", m(balance.riskBudgetLeft), "may still accept offline, limit \(m(balance.holdingLimit))"))
            rows.append(
                row("last sync", config.lastSync.map { Date(timeIntervalSince1970: TimeInterval($0)).description } ?? "never"))
            let human = rows.joined(separator: "\n")
            var object: [String: Any] = [
                "currency": currency.code, "online": online, "loggedIn": loggedIn, "frozen": frozen, "total": balance.total,
                "spendable": balance.spendable, "largestPayment": balance.largestPayment, "needsRefresh": balance.needsRefresh,
                "needsOnlineCheck": balance.needsOnlineCheck, "expired": balance.expired, "reserved": balance.reserved,
                "unsettled": balance.unsettled, "holding": balance.holding, "riskBudgetLeft": balance.riskBudgetLeft,
                "maxOfflineHolding": limits.maxOfflineHolding, "walletKey": wallet.publicKey.hex,
            ]
            if let settled { object["settled"] = settled }
            if let last = config.lastSync { object["lastSync"] = last }
            if let id = config.accountId { object["accountId"] = id }
            out.result(object, human: human)
        }
    }
}

extension PaymentMethod: ExpressibleByArgument {}
