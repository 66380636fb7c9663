import Foundation
import IssuerCore
import IssuerTesting
import OfflineNotes
import TestSupport
import Testing
import WalletCore

/// DESIGN §2.5: a double spend by the *middle* of a chain. Alice buys a note
/// and pays Bob; Bob pays Carol, then a tampered copy of Bob's wallet signs the same state again
/// to Dave, and once more to Carol. The proofs and every case name Bob — never Alice, whose key
/// signed the first hop of every chain involved — and Alice, Carol and Dave stay unfrozen with
/// their balances moved only by the honest credits.
@Suite struct MultiHopFraudTests {
    @Test(arguments: Backend.available)
    func theMiddleOfAChainIsNamedAndNobodyElse(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, aliceWallet) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (bob, bobWallet) = try await h.user("bob")
        let (carol, carolWallet) = try await h.user("carol")
        let (dave, daveWallet) = try await h.user("dave")
        let verifier = NoteVerifier(keyset: h.issuer.keyset, limits: h.issuer.limits)

        // A → B (6,000 of Alice's 10,000), then B → C (2,500 of it) through the honest wallets.
        try h.pay(6_000, from: aliceWallet, to: bobWallet)
        let bobsState = try #require(try bobWallet.states(.received).first)
        let toCarol = try h.pay(2_500, from: bobWallet, to: carolWallet)[0]
        #expect(toCarol.transfers.count == 2)
        let honest = try #require(toCarol.transfers.last)

        // The tampered copy of Bob's wallet signs Bob's state again, outside the wallet.
        func bobSignsAgain(to payee: Wallet, _ amount: UInt64) throws -> (request: PaymentRequest, chain: Chain) {
            let request = try payee.createRequest(amount: amount)
            let transfer = try Transfer.sign(
                input: bobsState.ref,
                outputs: [
                    TransferOutput(owner: payee.publicKey, amount: amount),
                    TransferOutput(owner: bobWallet.publicKey, amount: 6_000 - amount),
                ],
                nonce: request.nonce, createdAt: h.clock.now, signer: bobWallet.identity.signer)
            return (request, bobsState.chain.appending(transfer, holding: 0))
        }
        // Dave cannot know: he accepts offline.
        let (daveRequest, toDave) = try bobSignsAgain(to: daveWallet, 2_000)
        _ = try daveWallet.receive(try PaymentBundle(chains: [toDave]).encoded, for: daveRequest.nonce)
        // Carol holds Bob's first transfer: she catches the second one offline, and the proof names Bob.
        let (carolRequest, againToCarol) = try bobSignsAgain(to: carolWallet, 1_000)
        let second = try PaymentBundle(chains: [againToCarol]).encoded
        let refusal = caught(WalletError.self) { try carolWallet.receive(second, for: carolRequest.nonce) }
        guard case .doubleSpendDetected(let proof) = refusal else {
            Issue.record("Carol accepted Bob's second spend of one state: \(String(describing: refusal))")
            return
        }
        #expect(proof.cheater == bobWallet.publicKey)
        #expect(proof.state == bobsState.ref)
        #expect(try verifier.verify(proof, now: h.clock.now) == bobWallet.publicKey)
        #expect(try carolWallet.fraudProofs().map(\.cheater) == [bobWallet.publicKey])
        #expect(try carolWallet.balance().unsettled == 2_500)  // the refused payment added nothing

        // Online: what each honest party holds before the issuer sees anything.
        let before = try await balances(h, [alice, carol, dave])

        // Carol redeems Bob's honest transfer; Dave redeems the second one; Carol reports her proof.
        #expect(try await h.issuer.redeem(account: carol, chains: [toCarol.encoded]) == [.credited(amount: 2_500)])
        let daves = try await h.issuer.redeem(account: dave, chains: [toDave.encoded])
        guard case .conflict(let daveCase, let credited) = daves.first else {
            Issue.record("Dave's redemption of the second spend was not a conflict: \(daves)")
            return
        }
        #expect(credited == 2_000)  // the honest later receiver is paid, from Bob
        let reported = try await h.issuer.reportFraud(
            account: carol, chain: proof.chain.encoded, first: proof.first.encoded, second: proof.second.encoded)
        guard case .conflict = reported else {
            Issue.record("Carol's report opened no case: \(reported)")
            return
        }

        // Every case names Bob's key and account, and its evidence proves Bob signed twice.
        let cases = try await h.issuer.fraudCases()
        #expect(!cases.isEmpty && cases.contains { $0.id == daveCase })
        for fraud in cases {
            #expect(fraud.cheaterKey == bobWallet.publicKey, "case \(fraud.id) names \(fraud.cheaterKey.keyID), not Bob")
            #expect(fraud.cheaterAccount == bob)
            #expect(fraud.state == bobsState.ref)
            if let first = fraud.firstTransfer, let second = fraud.secondTransfer {
                let evidence = FraudProof(
                    chain: try Chain(decoding: fraud.chain), first: try Transfer(decoding: first),
                    second: try Transfer(decoding: second))
                #expect(try verifier.verify(evidence, now: h.clock.now) == bobWallet.publicKey)
                #expect(Set([evidence.first.hash, evidence.second.hash]).contains(honest.hash))
            }
        }

        // Bob is frozen and pays Dave's credit; Alice, Carol and Dave are unfrozen, and their
        // balances moved by exactly the honest credits.
        #expect(try await h.issuer.account(bob).frozen)
        #expect(try await h.balance(bob) == -2_000)
        let after = try await balances(h, [alice, carol, dave])
        #expect(after[alice] == before[alice])
        #expect(after[carol] == before[carol].map { $0 + 2_500 })
        #expect(after[dave] == before[dave].map { $0 + 2_000 })
        for account in [alice, carol, dave] { #expect(try await !h.issuer.account(account).frozen, "account \(account) frozen") }
        #expect(
            try await h.issuer.auditLog().filter { $0.action == "fraud_case" }.allSatisfy {
                $0.detail.contains(bobWallet.publicKey.keyID.hex)
            })

        // Alice's change from the first hop is still hers to spend, and is paid like any note.
        try h.pay(4_000, from: aliceWallet, to: daveWallet)
        let fromAlice = try #require(try daveWallet.states(.received).first { $0.amount == 4_000 })
        #expect(try await h.issuer.redeem(account: dave, chains: [fromAlice.chain.encoded]) == [.credited(amount: 4_000)])
        #expect(try await h.balance(dave) == 6_000)
        #expect(try await !h.issuer.account(alice).frozen)
        try await h.expectBooksBalance()
    }

    func balances(_ h: IssuerHarness, _ accounts: [Int64]) async throws -> [Int64: Int64] {
        var out: [Int64: Int64] = [:]
        for account in accounts { out[account] = try await h.balance(account) }
        return out
    }
}
