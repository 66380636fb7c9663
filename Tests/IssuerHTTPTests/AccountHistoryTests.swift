import Foundation
import IssuerCore
import OfflineNotes
import Synchronization
import Testing
import WalletCore
import WalletSync

/// The issuer's account journal in the wallet's history, through a real server.
@Suite struct AccountHistoryTests {
    /// An online transfer (both sides), funding and an expiry refund each show once, however
    /// often sync imports the journal; the redemption settles the payment it belongs to
    /// instead of adding a line, and the purchase adds none next to the wallet's own.
    @Test func onlineTransfersAndExpiryRefundsShowOnceAfterTwoImports() async throws {
        let skew = Mutex<UInt64>(0)
        try await HTTPHarness.with(clock: { Timestamp(Date().timeIntervalSince1970) + skew.withLock { $0 } }) { h in
            let (aliceServer, alice) = try await SyncTests.client(h, "alice-history")
            let (bobServer, bob) = try await SyncTests.client(h, "bob-history")
            try await aliceServer.fund(10_000)
            try await aliceServer.purchase(3_000, into: alice)
            _ = try await aliceServer.sendOnline(to: "bob-history@sync.test", amount: 1_500)
            try alice.recordOnlineTransfer(to: "bob-history@sync.test", amount: 1_500)
            let request = try bob.createRequest(amount: 1_000)
            _ = try bob.receive(try alice.pay(request).bundle, for: request.nonce)
            #expect(try await bobServer.redeem(from: bob).credited == 1_000)

            // What Alice still holds expires unspent; the issuer's sweep refunds it to her.
            let config = IssuerConfig(currency: try #require(Currency("EUR")))  // the harness runs with the defaults
            skew.withLock { $0 = config.noteLifetime + config.redemptionGrace + 60 }
            #expect(try await h.issuer.sweepExpired() > 0)

            for _ in 0..<2 {
                try await aliceServer.importAccountHistory(into: alice)
                try await bobServer.importAccountHistory(into: bob)
            }
            #expect(try await aliceServer.importAccountHistory(into: alice) == AccountHistoryImport())

            let aliceLines = try alice.history()
            let sentOnline = aliceLines.filter { $0.direction == .sent && $0.method == "online" }
            #expect(sentOnline.map(\.counterparty) == ["bob-history@sync.test"] && sentOnline.map(\.amount) == [1_500])
            #expect(aliceLines.filter { $0.direction == .funded }.map(\.amount) == [10_000])
            #expect(aliceLines.filter { $0.direction == .purchased }.map(\.amount) == [3_000])
            #expect(aliceLines.filter { $0.direction == .refunded }.reduce(0) { $0 + $1.amount } == 2_000)
            #expect(aliceLines.filter { $0.direction == .sent && $0.method != "online" }.map(\.amount) == [1_000])
            #expect(try alice.balance().expired == 0, "refunded notes are not held any more")
            let sentLine = try #require(sentOnline.first)
            let sentDetail = try #require(try alice.historyDetail(sentLine.id))
            #expect(sentDetail.journal.map(\.kind) == ["send"] && sentDetail.journal.map(\.amount) == [-1_500])

            let bobLines = try bob.history()
            #expect(bobLines.count == 2, "\(bobLines.map { ($0.direction, $0.method, $0.amount) })")
            #expect(bobLines.filter { $0.direction == .received && $0.method == "online" }.map(\.amount) == [1_500])
            let offline = try #require(bobLines.first { $0.direction == .received && $0.method != "online" })
            let detail = try #require(try bob.historyDetail(offline.id))
            #expect(detail.settlement == .settled)
            #expect(detail.journal.map(\.kind) == ["redeem"] && detail.journal.map(\.amount) == [1_000])
            #expect(detail.counterpartyKey == alice.publicKey.keyID)
        }
    }
}
