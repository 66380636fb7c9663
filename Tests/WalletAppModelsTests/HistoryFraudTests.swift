import Foundation
import OfflineNotes
import Testing
import WalletAppModels
import WalletCore
import WalletFlows
import WalletTestSupport

/// The history detail names the fraud case of a double spend.
@Suite("History model: fraud")
@MainActor
struct HistoryFraudTests {
    @Test func theDetailOfADoubleSpentPaymentNamesItsCase() async throws {
        try await LoopbackIssuer.with { h in
            let (alice, _) = try await h.loggedIn("cheat", funds: 10_000)
            let (bob, _) = try await h.loggedIn("first")
            let (carol, _) = try await h.loggedIn("second")
            _ = try await alice.purchase(1_000)
            // Alice pays Bob, then signs the same note to Carol outside her wallet (a tampered phone).
            let first = try bob.wallet.createRequest(amount: 1_000)
            let paid = try alice.wallet.pay(first, amount: 1_000)
            _ = try bob.wallet.receive(paid.bundle, for: first.nonce)
            let note = Chain(note: try #require(try PaymentBundle(decoding: paid.bundle).chains.first).note)
            let (again, second) = try alice.wallet.signAgain(
                note, to: carol.wallet, amount: note.note.amount, now: UInt64(Date().timeIntervalSince1970))
            _ = try carol.wallet.receive(second, for: again.nonce)
            _ = try await bob.sync(refreshWithin: 0)
            let carolReport = try await carol.sync(refreshWithin: 0)
            let history = HistoryModel(wallet: carol.wallet)
            history.appear()
            defer { history.disappear() }
            #expect(await untilTrue { !history.entries.isEmpty })
            let line = try #require(history.rows.first { $0.direction == .received })
            await history.open(line.id)
            let detail = try #require(history.detail)
            // The issuer paid Carol from the cheater's account and opened a case: the detail says so.
            #expect(carolReport.fraudCases.count == 1)
            // The redemption names the case; the value at stake is the note Carol handed in.
            #expect(carolReport.fraudCases.map { carolReport.fraudAmounts[$0] } == [note.note.amount])
            #expect(detail.fraudCases == carolReport.fraudCases)
            #expect(detail.fraudKinds == ["fraud_recovery"])
            #expect(detail.settlement == .settled && detail.journalEntries >= 1)
            #expect(detail.chainLength == 1 && detail.receiptAt != nil)
        }
    }
}
