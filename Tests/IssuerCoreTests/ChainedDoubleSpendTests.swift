import Foundation
import IssuerCore
import IssuerTesting
import OfflineNotes
import TestSupport
import Testing
import WalletCore
import WalletTestSupport

/// From the adversarial economy (docs/reliability.md §3, `wallet-economy --seed 20261124`):
/// a cheater double spends its note, the other branch wins at the issuer, then the cheater
/// double spends the change of its losing branch too. Every chain through that change passes
/// the first double spend before it reaches the second; the issuer must open a case for each
/// conflict of a chain, not only the first, so the second is on the books too (DESIGN §2.5).
@Suite struct ChainedDoubleSpendTests {
    @Test(arguments: Backend.available)
    func aSecondDoubleSpendFurtherDownOneChainIsOnTheBooksToo(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, aliceWallet) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (_, bobWallet) = try await h.user("bob")
        let (carol, carolWallet) = try await h.user("carol")
        let (dave, daveWallet) = try await h.user("dave")
        let (erin, erinWallet) = try await h.user("erin")
        let note = try #require(try aliceWallet.states(.available).first?.chain)

        // Alice pays Bob 4,000 through her wallet; her change (6,000) is the state `change`.
        try h.pay(4_000, from: aliceWallet, to: bobWallet)
        let change = try #require(try aliceWallet.states(.available).first)
        // A tampered copy spends the note again, to Carol, who redeems first: her branch wins.
        let (toCarolRequest, toCarol) = try aliceWallet.signAgain(note, to: carolWallet, amount: 3_000, now: h.clock.now)
        _ = try carolWallet.receive(toCarol, for: toCarolRequest.nonce)
        let carolResult = try await h.issuer.redeem(
            account: carol, chains: [try PaymentBundle(decoding: toCarol).chains[0].encoded])
        #expect(carolResult == [.credited(amount: 3_000)])
        // Alice's wallet pays Dave from the change, and the tampered copy spends the change again, to Erin.
        let toDave = try h.pay(1_000, from: aliceWallet, to: daveWallet)[0]
        let (toErinRequest, toErin) = try aliceWallet.signAgain(change.chain, to: erinWallet, amount: 2_000, now: h.clock.now)
        _ = try erinWallet.receive(toErin, for: toErinRequest.nonce)

        let daveResult = try await h.issuer.redeem(account: dave, chains: [toDave.encoded])
        let erinResult = try await h.issuer.redeem(account: erin, chains: [try PaymentBundle(decoding: toErin).chains[0].encoded])
        // Both honest payees are paid, from Alice's account.
        #expect(daveResult.map(\.creditedAmount) == [1_000])
        #expect(erinResult.map(\.creditedAmount) == [2_000])
        // Both double spends are cases naming Alice: the note's state and her change.
        let cases = try await h.issuer.fraudCases()
        #expect(Set(cases.map(\.state)) == [note.heldRef, change.ref])
        #expect(cases.allSatisfy { $0.cheaterKey == aliceWallet.publicKey && $0.cheaterAccount == alice })
        #expect(try await h.issuer.account(alice).frozen)
        try await h.expectBooksBalance()
    }

    /// From the adversarial economy too: Carol accepts a note from Alice's second spend (she
    /// cannot know), then pays Bob with it; Bob saw the first spend and rightly refuses. Carol's
    /// wallet never signs that state again, so an expiry refund that walked only the branch the
    /// issuer saw first would strand it. The losing branch she announced is refunded at expiry
    /// like any announced payment (§5.2
    /// rule 4) — to Bob, whose key her payment names, and her change to her — from Alice's account.
    @Test(arguments: Backend.available)
    func aPaymentRefusedForCarryingADoubleSpendIsRefundedFromTheCheaterAtExpiry(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, aliceWallet) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (bob, bobWallet) = try await h.user("bob")
        let (carol, carolWallet) = try await h.user("carol")
        let note = try #require(try aliceWallet.states(.available).first?.chain)
        let toBob = try h.pay(4_000, from: aliceWallet, to: bobWallet)[0]
        let (toCarolRequest, toCarol) = try aliceWallet.signAgain(note, to: carolWallet, amount: 3_000, now: h.clock.now)
        _ = try carolWallet.receive(toCarol, for: toCarolRequest.nonce)
        #expect(try await h.issuer.redeem(account: bob, chains: [toBob.encoded]) == [.credited(amount: 4_000)])

        // Carol pays Bob 2,000 out of it; Bob holds Alice's first spend and refuses.
        let request = try bobWallet.createRequest(amount: 2_000)
        let payment = try carolWallet.pay(request)
        let refusal = caught(WalletError.self) { try bobWallet.receive(payment.bundle, for: request.nonce) }
        guard case .doubleSpendDetected(let proof) = refusal else {
            Issue.record("Bob accepted a payment through a state he saw spent otherwise: \(String(describing: refusal))")
            return
        }
        #expect(proof.cheater == aliceWallet.publicKey)
        // Carol's sync announces the payment still waiting for its receipt; the issuer sees the double spend.
        let announced = try await h.issuer.announce(
            account: carol, chain: try PaymentBundle(decoding: payment.bundle).chains[0].encoded)
        guard case .conflict = announced else {
            Issue.record("the announce of a chain through a losing branch was answered \(announced)")
            return
        }
        let before = (alice: try await h.balance(alice), bob: try await h.balance(bob), carol: try await h.balance(carol))

        h.clock.now += 45 * 86_400  // past expiry (30 days) and grace (14 days)
        #expect(try await h.issuer.sweepExpired() == 1)
        // Alice's change of her first spend (6,000) comes back to her from the float; the 3,000 of
        // her second spend is paid from her account: 2,000 to Bob, 1,000 of change to Carol.
        #expect(try await h.balance(bob) - before.bob == 2_000)
        #expect(try await h.balance(carol) - before.carol == 1_000)
        #expect(try await h.balance(alice) - before.alice == 6_000 - 3_000)
        #expect(try await h.issuer.outstandingFloat() == 0)
        try await h.expectBooksBalance()
    }
}
