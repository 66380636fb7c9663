import Foundation
import IssuerCore
import Testing

/// What the console tells an operator about debts, first spends, online transfers and keys a
/// restore replaced: the words match what happened, and every account named is a link.
@Suite struct ConsoleWordingTests {
    /// A browser logged in as the harness's admin.
    static func `operator`(_ h: ConsoleHarness) async throws -> Browser {
        let b = h.browser()
        _ = try await b.logIn(h.admin.email)
        return b
    }

    @Test func debtsFromARestoreConflictAreNotCalledDoubleSpends() async throws {
        try await ConsoleHarness.with { h in
            let conflict = try await h.makeRestoreConflict()
            #expect(try await h.issuer.account(conflict.dora).balance == -3_000)
            let b = try await Self.operator(h)
            let overview = try await b.get("/console").body
            #expect(!overview.contains("owed by double spenders"))
            #expect(overview.contains("negative balances: double spends and restore conflicts"))
            let debtors = try await b.get("/console/debtors").body
            #expect(debtors.contains("dora@console.test") && debtors.contains("a restore conflict"), "\(debtors)")
            #expect(debtors.contains("<a href=\"/console/fraud-cases?account=\(conflict.dora)\">cases naming it</a>"))
        }
    }

    @Test func aFirstSpendThatWasARedemptionLinksTheAccount() async throws {
        try await ConsoleHarness.with { h in
            let conflict = try await h.makeRestoreConflict()
            let b = try await Self.operator(h)
            let page = try await b.get("/console/fraud-cases/\(conflict.caseID)").body
            #expect(
                page.contains(
                    "A redemption: <a href=\"/console/accounts/\(conflict.dora)\">dora@console.test</a> (account \(conflict.dora)) redeemed the state"
                ),
                "\(page)")
            #expect(!page.contains("A redemption: account \(conflict.dora) redeemed"))
        }
    }

    @Test func onlineTransfersShowTheirCounterpartyBothWays() async throws {
        try await ConsoleHarness.with { h in
            let eve = try await h.issuer.register(email: "eve@console.test", password: ConsoleHarness.password)
            let finn = try await h.issuer.register(email: "finn@console.test", password: ConsoleHarness.password)
            _ = try await h.issuer.fund(account: eve, amount: 900)
            _ = try await h.issuer.send(from: eve, toEmail: "finn@console.test", amount: 400, idempotencyKey: "console-send-1")
            let b = try await Self.operator(h)
            let received = try await b.get("/console/accounts/\(finn)").body
            #expect(received.contains("from <a href=\"/console/accounts/\(eve)\">eve@console.test</a>"), "\(received)")
            let sent = try await b.get("/console/accounts/\(eve)").body
            #expect(sent.contains("to <a href=\"/console/accounts/\(finn)\">finn@console.test</a>"), "\(sent)")
        }
    }

    @Test func aWalletKeyReplacedByARestoreIsMarkedRetired() async throws {
        try await ConsoleHarness.with { h in
            let conflict = try await h.makeRestoreConflict()
            let b = try await Self.operator(h)
            let page = try await b.get("/console/accounts/\(conflict.dora)").body
            let rows = page.components(separatedBy: "<tr>")
            let old = try #require(rows.first { $0.hasPrefix("<td><code>\(conflict.oldKey.keyID.hex)</code>") })
            let new = try #require(rows.first { $0.hasPrefix("<td><code>\(conflict.newKey.keyID.hex)</code>") })
            #expect(
                old.contains("retired") && old.contains("a restore moved its notes to key \(conflict.newKey.keyID.hex)"), "\(old)"
            )
            #expect(new.contains("in use") && !new.contains("retired"), "\(new)")
        }
    }
}
