import Foundation
import OfflineNotes
import Testing
import WalletCore

/// Which spendable notes a sync exchanges for fresh ones (`Wallet.statesDueForRefresh`): few,
/// short chains make payments of few QR frames.
@Suite struct RefreshPolicyTests {
    @Test func oneOrTwoFreshNotesStayAsTheyAre() throws {
        let h = try WalletHarness()
        let w = try h.wallet("two", funds: [5_000, 3_000])
        #expect(try w.statesDueForRefresh(now: h.clock.now, expiringWithin: 3_600).isEmpty)
    }

    @Test func changeAndSurplusFreshNotesAreConsolidated() throws {
        let h = try WalletHarness()
        let payer = try h.wallet("payer", funds: [5_000, 3_000, 1_000, 700])
        let payee = try h.wallet("payee")
        try h.transfer(4_000, from: payer, to: payee)  // pays from the 5,000: 1,000 change, one hop
        let due = try payer.statesDueForRefresh(now: h.clock.now, expiringWithin: 3_600)
        // The change (it has travelled) and every fresh note but the largest (3,000).
        #expect(due.map(\.amount).sorted() == [700, 1_000, 1_000])
        #expect(due.contains { $0.chain.transfers.count == 1 && $0.amount == 1_000 })
        #expect(!due.contains { $0.amount == 3_000 })
        // Notes held for an online check are never handed in twice.
        try payer.holdForOnlineCheck(due.map(\.ref))
        #expect(try payer.statesDueForRefresh(now: h.clock.now, expiringWithin: 3_600).isEmpty)
    }

    @Test func aNoteCloseToExpiryIsRefreshedEvenWhenAlone() throws {
        let h = try WalletHarness()
        let w = try h.wallet("alone", funds: [5_000])
        let expiresAt = try #require(try w.states(.available).first?.chain.note.expiresAt)
        #expect(try w.statesDueForRefresh(now: h.clock.now, expiringWithin: 3_600).isEmpty)
        #expect(try w.statesDueForRefresh(now: expiresAt - 60, expiringWithin: 3_600).count == 1)
    }
}
