import ArgumentParser
import Foundation
import OfflineNotes
import WalletCore
import WalletSync

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Balances: settled (issuer account), offline spendable, reserved, unsettled, risk budget left, last sync.")
    @OptionGroup var common: CommonOptions
    @Flag(help: "Do not contact the issuer; show offline balances only.") var offline = false

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
            if !offline, config.refreshToken != nil {
                do {
                    try await home.withLock {
                        let session = try await OnlineSession.open(home, wallet: wallet)
                        let account = try await session.client.account()
                        settled = account.balance
                        frozen = account.frozen
                        online = true
                    }
                } catch let e as CLIError where e.exit == .login {
                    throw e
                } catch {
                    out.note("Issuer not reachable: showing offline balances (\(CLIError.from(error).description))")
                }
            }
            let held = balance.spendable + balance.reserved + balance.unsettled + balance.needsOnlineCheck
            let riskLeft = limits.maxOfflineHolding > held ? limits.maxOfflineHolding - held : 0
            let m = { (v: UInt64) in MoneyText.format(v, currency) }
            var human = """
                \(online ? "● online" : "○ offline")\(frozen ? "  — ACCOUNT FROZEN (a double spend was charged to it)" : "")
                settled (account)   \(settled.map { MoneyText.format(signed: $0, currency) } ?? "unknown (offline)")
                offline spendable   \(m(balance.spendable))
                reserved            \(m(balance.reserved))   (sent, receipt not yet back)
                unsettled           \(m(balance.unsettled))   (received offline, redeem with: wallet sync)
                risk budget left    \(m(riskLeft))   (may still hold offline, limit \(m(limits.maxOfflineHolding)))
                """
            if balance.needsOnlineCheck > 0 { human += "\nneeds online check  \(m(balance.needsOnlineCheck))   (restored; run wallet sync before spending)" }
            if balance.expired > 0 { human += "\nexpired             \(m(balance.expired))   (refunded to the buyer's account by the issuer)" }
            human += "\nlast sync           \(config.lastSync.map { Date(timeIntervalSince1970: TimeInterval($0)).description } ?? "never")"
            var object: [String: Any] = [
                "currency": currency.code, "online": online, "frozen": frozen,
                "spendable": balance.spendable, "reserved": balance.reserved, "unsettled": balance.unsettled,
                "needsOnlineCheck": balance.needsOnlineCheck, "expired": balance.expired, "riskBudgetLeft": riskLeft,
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
