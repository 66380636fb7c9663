import Foundation
import IssuerCore
import IssuerTesting
import OfflineNotes
import TestSupport
import Testing
import WalletCore
import WalletTestSupport

/// Found by the adversarial economy (docs/reliability.md §3, `wallet-economy --seed 20261124`):
/// a cheater double spends its note, the other branch wins at the issuer, then the cheater
/// double spends the change of its losing branch too. Every chain through that change passes
/// the first double spend before it reaches the second, and the issuer opened a case for the
/// first conflict of a chain only: the second double spend was never on the books (DESIGN §2.5).
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
        let carolResult = try await h.issuer.redeem(account: carol, chains: [try PaymentBundle(decoding: toCarol).chains[0].encoded])
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
}
