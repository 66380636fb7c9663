import Foundation
import OfflineNotes
import Testing
import WalletAppModels
import WalletCore
import WalletFlows
import WalletTestSupport

/// History against a real issuer: chips and counts agree with the rows, rows are drawn as the
/// screen shows them, and the detail carries the proof.
@Suite("History model")
@MainActor
struct HistoryModelTests {
    @Test func filtersCountsRowsAndDetail() async throws {
        try await LoopbackIssuer.with { h in
            let (alice, _) = try await h.loggedIn("hist-alice", funds: 100_000)
            let (bob, _) = try await h.loggedIn("hist-bob")
            let clock = TestClock(UInt64(Date().timeIntervalSince1970) + 330)  // "5 min ago" for lines written in the next 29 s
            let history = HistoryModel(wallet: alice.wallet, clock: clock)
            history.appear()
            defer { history.disappear() }
            _ = try await alice.purchase(30_000)
            let payer = AsyncWallet(alice.wallet)
            let payee = AsyncWallet(bob.wallet)

            // Completed offline: paid, received, receipt back.
            let r1 = try await payee.createRequest(amount: 1_000, payeeName: "Bob")
            let p1 = try await payer.pay(r1, method: .bluetooth)
            let got = try await payee.receive(p1.bundle, method: .bluetooth)
            try await payer.confirm(receipt: got.receipt.encoded)
            // Pending: no receipt came back.
            let p2 = try await payer.pay(try await payee.createRequest(amount: 500), method: .qr)
            // Failed: the issuer reported the notes expired unredeemed.
            let r3 = try await payee.createRequest(amount: 700)
            _ = try await payer.pay(r3, method: .qr)
            try await payer.resolvePending(r3.nonce, .expiredUnredeemed)
            // Online transfer.
            _ = try await alice.sendOnline(to: try await bob.account().email, amount: 2_000)

            #expect(await untilTrue { history.entries.contains { $0.amount == 2_000 } })
            let counts = history.counts
            #expect(counts[.pending] == 1 && counts[.failed] == 1)
            #expect(counts[.all] == (counts[.offline] ?? 0) + (counts[.online] ?? 0))
            #expect(counts[.all] == history.entries.count)

            history.filter = .offline
            #expect(Set(history.rows.filter { $0.direction == .sent }.map(\.amount)) == [1_000, 500, 700])
            history.filter = .online
            #expect(history.rows.contains { $0.amount == 2_000 && $0.method == "Online" && $0.amountText == "−20.00 EUR" })
            history.filter = .pending
            #expect(history.rows.map(\.amount) == [500] && history.rows.first?.method == "QR")
            history.filter = .failed
            let failed = try #require(history.rows.first)
            #expect(failed.amount == 700 && failed.status == .failed && failed.error?.contains("expired") == true)
            #expect(failed.relativeTime == "5 min ago")

            // Detail of the completed payment: chain, receipt, the payee's key.
            history.filter = .all
            let paid = try #require(history.rows.first { $0.amount == 1_000 })
            #expect(paid.method == "Bluetooth" && paid.status == .completed && !paid.isIncoming && paid.counterparty == "Bob")
            await history.open(paid.id)
            let detail = try #require(history.detail)
            #expect(detail.row.id == paid.id)
            #expect(detail.chainLength == 1)
            #expect(detail.receiptAt != nil)
            #expect(detail.counterpartyKey == "\(bob.wallet.publicKey.keyID)")
            let issuerKeys = try PaymentBundle(decoding: p1.bundle).chains.map { "\($0.note.issuerKeyID)" }
            #expect(
                !issuerKeys.isEmpty && detail.issuerKeys == Array(Set(issuerKeys)).sorted(),
                "the proof's root: \(detail.issuerKeys)")
            #expect(detail.settlement == HistoryDetail.Settlement.none && detail.fraudCases.isEmpty)
            history.closeDetail()
            #expect(history.detail == nil)

            let refunded = try #require(history.entries.first { $0.amount == 700 })
            await history.open(refunded.id)
            #expect(history.detail?.settlement == .expiredRefunded)
            #expect(history.detail?.receiptAt == nil)
            #expect(history.detail?.issuerKeys.isEmpty == false, "a payment sent keeps its proof's root")

            // A line that is not there: the problem says so, no detail opens.
            history.closeDetail()
            await history.open(999_999)
            #expect(history.detail == nil && history.problem != nil)
            _ = p2
        }
    }

    @Test func emptyStatesAndBobsReceivedLineSettlesAfterSync() async throws {
        try await LoopbackIssuer.with { h in
            let (alice, _) = try await h.loggedIn("empty-alice", funds: 10_000)
            let (bob, _) = try await h.loggedIn("empty-bob")
            let history = HistoryModel(wallet: bob.wallet)
            history.appear()
            defer { history.disappear() }
            #expect(history.emptyText != nil)
            _ = try await alice.purchase(5_000)
            let request = try await AsyncWallet(bob.wallet).createRequest(amount: 1_250)
            _ = try await AsyncWallet(bob.wallet).receive(try await AsyncWallet(alice.wallet).pay(request).bundle)
            #expect(await untilTrue { history.rows.count == 1 })
            history.filter = .failed
            #expect(history.emptyText == "No failed transactions.")
            history.filter = .all
            let row = try #require(history.rows.first)
            #expect(row.isIncoming && row.amountText == "+12.50 EUR" && row.method == "QR")
            await history.open(row.id)
            #expect(history.detail?.settlement == .pending)
            _ = try await bob.sync(refreshWithin: 0)
            await history.open(row.id)
            #expect(history.detail?.settlement == .settled)
        }
    }
}
