import Foundation
import OfflineNotes
import Testing
import WalletCore
import WalletSync

/// Restored notes and payments whose receipt was lost, settled through the wallet's online
/// client and a real server on loopback.
@Suite struct SettlementSyncTests {
    /// Item 5: the payee redeemed, the receipt never reached the payer: sync settles the
    /// payment from the issuer's records instead of leaving it reserved forever.
    @Test func aPaymentWhoseReceiptWasLostIsSettledBySync() async throws {
        try await HTTPHarness.with { h in
            let (aliceServer, alice) = try await SyncTests.client(h, "alice")
            let (bobServer, bob) = try await SyncTests.client(h, "bob")
            try await aliceServer.fund(5_000)
            try await aliceServer.purchase(5_000, into: alice)
            let request = try bob.createRequest(amount: 1_800)
            let sent = try alice.pay(request)
            _ = try bob.receive(sent.bundle, for: request.nonce)  // the receipt is lost on the way back

            // Before the payee redeems, the payment stays pending.
            _ = try await aliceServer.announcePending(of: alice)
            var report = try await aliceServer.settlePendingPayments(of: alice, now: UInt64(Date().timeIntervalSince1970))
            #expect(report.confirmed == 0 && report.expired == 0 && report.stillPending == 1)
            #expect(try alice.balance().reserved == 1_800)

            #expect(try await bobServer.redeemReceived(from: bob) == 1_800)
            report = try await aliceServer.settlePendingPayments(of: alice, now: UInt64(Date().timeIntervalSince1970))
            #expect(report.confirmed == 1 && report.expired == 0 && report.stillPending == 0)
            #expect(try alice.balance().reserved == 0)
            #expect(try alice.pendingPayments().isEmpty)
            #expect(try alice.resolution(of: request.nonce) == .confirmedByIssuer)
            #expect(try alice.history(HistoryFilter(direction: .sent)).first?.status == .completed)
            #expect(try alice.states(.reserved).isEmpty)
        }
    }

    /// Item 3: a restored wallet (new key) exchanges its restored notes online; the old device's
    /// later payment from one of them is paid from the account and does not freeze it.
    @Test func aRestoredWalletExchangesItsNotesAndTheOldDeviceIsNotAccusedOfFraud() async throws {
        try await HTTPHarness.with { h in
            let (server, oldDevice) = try await SyncTests.client(h, "erin")
            let (carolServer, carol) = try await SyncTests.client(h, "carol")
            try await server.fund(6_000)
            try await server.purchase(6_000, into: oldDevice)
            let backup = try oldDevice.exportBackup(passphrase: "correct horse battery", cost: .testing)
            let restored = try Wallet.restore(
                backup, passphrase: "correct horse battery", into: h.scratch.path("restored-" + UUID().uuidString),
                keyCost: .testing)
            try await server.registerKey(of: restored)
            #expect(try restored.balance().needsOnlineCheck == 6_000)

            let exchange = try await server.exchangeRestoredNotes(of: restored)
            #expect(exchange.exchanged == 1 && exchange.value == 6_000)
            #expect(try restored.balance().spendable == 6_000)
            // Again: nothing left to exchange, nothing doubled.
            #expect(try await server.exchangeRestoredNotes(of: restored).exchanged == 0)
            #expect(try await server.account().balance == 0)

            // The old device pays Carol 2,000 from the exchanged note; Carol redeems.
            let request = try carol.createRequest(amount: 2_000)
            _ = try carol.receive(try oldDevice.pay(request).bundle, for: request.nonce)
            #expect(try await carolServer.redeemReceived(from: carol) == 2_000)
            let account = try await server.account()
            #expect(account.balance == -2_000)
            #expect(!account.frozen)
        }
    }

    /// One backup restored twice: the second restore finds its notes already exchanged by the
    /// first. They are retired with a per-note answer, and nothing is bought or charged: the
    /// value is in the first restore's notes.
    @Test func aBackupRestoredTwiceBuysNothingTheSecondTime() async throws {
        try await HTTPHarness.with { h in
            let (server, oldDevice) = try await SyncTests.client(h, "twice")
            try await server.fund(10_000)
            try await server.purchase(6_000, into: oldDevice)
            let backup = try oldDevice.exportBackup(passphrase: "correct horse battery", cost: .testing)
            func restore() throws -> Wallet {
                try Wallet.restore(
                    backup, passphrase: "correct horse battery", into: h.scratch.path("restored-" + UUID().uuidString),
                    keyCost: .testing)
            }
            let first = try restore()
            try await server.registerKey(of: first)
            #expect(try await server.exchangeRestoredNotes(of: first).value == 6_000)
            #expect(try await server.account().balance == 4_000)

            let second = try restore()
            try await server.registerKey(of: second)
            let exchange = try await server.exchangeRestoredNotes(of: second)
            #expect(exchange.exchanged == 0 && exchange.value == 0)
            #expect(exchange.alreadyExchanged == 1)
            #expect(exchange.refused.isEmpty)
            let balance = try second.balance()
            #expect(
                balance.total == 0 && balance.needsOnlineCheck == 0,
                "the second restore still holds the exchanged note: \(balance)")
            #expect(try await server.account().balance == 4_000, "the second restore bought notes")
            #expect(try await server.account().outstandingNotes == 6_000)
            // The first restore still owns the value, and asking again changes nothing.
            #expect(try first.balance().spendable == 6_000)
            #expect(try await server.exchangeRestoredNotes(of: second).alreadyExchanged == 0)
            #expect(try await server.account().balance == 4_000)
        }
    }
}
