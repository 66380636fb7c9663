import DevIssuer
import Foundation
import OfflineNotes
import Testing
import WalletCore

@Suite struct PaymentFlowTests {
    @Test func offlinePaymentWithChangeSettlesOnReceipt() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [10_000])
        let bob = try h.wallet("bob")
        let request = try bob.createRequest(amount: 3_000, payeeName: "Bob")
        let sent = try alice.pay(request, method: .qr)
        #expect(sent.status == .signed)
        var a = try alice.balance()
        #expect(a.spendable == 7_000)
        #expect(a.reserved == 3_000)

        let got = try bob.receive(sent.bundle, for: request.nonce)
        #expect(got.amount == 3_000)
        let done = try alice.confirm(receipt: got.receipt.encoded)
        #expect(done.status == .completed)

        a = try alice.balance()
        #expect(a.spendable == 7_000)
        #expect(a.reserved == 0)
        let b = try bob.balance()
        #expect(b.spendable == 3_000)
        #expect(b.unsettled == 3_000)

        let aliceHistory = try alice.history()
        #expect(aliceHistory.map(\.direction) == [.sent, .purchased])
        #expect(aliceHistory[0].status == .completed)
        #expect(aliceHistory[0].counterparty == "Bob")
        #expect(aliceHistory[0].amount == 3_000)
        #expect(try bob.history(HistoryFilter(direction: .received)).count == 1)
        #expect(try bob.history(HistoryFilter(direction: .sent)).isEmpty)
        #expect(try alice.history(HistoryFilter(method: .online)).map(\.direction) == [.purchased])
        #expect(try alice.history(HistoryFilter(limit: 1, offset: 1)).map(\.direction) == [.purchased])
    }

    @Test func receivedNotesCanBeSpentAgainAndChangeToo() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [10_000])
        let bob = try h.wallet("bob")
        let carol = try h.wallet("carol")
        try h.transfer(6_000, from: alice, to: bob)
        try h.transfer(2_500, from: bob, to: carol)  // bob spends a received note, with change
        try h.transfer(3_000, from: alice, to: carol)  // alice spends her change
        #expect(try alice.balance().spendable == 1_000)
        #expect(try bob.balance().spendable == 3_500)
        #expect(try carol.balance().spendable == 5_500)
        let carolStates = try carol.states(.received)
        #expect(carolStates.map(\.chain.hops).sorted() == [2, 2])
    }

    @Test func paymentsUseSeveralNotesWhenNoneCovers() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [1_000, 2_000, 500])
        let bob = try h.wallet("bob")
        let (sent, _) = try h.transfer(3_200, from: alice, to: bob)
        #expect(try PaymentBundle(decoding: sent.bundle).chains.count == 3)
        #expect(try alice.balance().spendable == 300)
        #expect(try bob.balance().spendable == 3_200)
    }

    @Test func payingTheSameRequestAgainReturnsTheSameBytes() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [10_000])
        let bob = try h.wallet("bob")
        let request = try bob.createRequest(amount: 1_234)
        let first = try alice.pay(request)
        let again = try alice.pay(request)
        #expect(again.bundle == first.bundle)
        #expect(try alice.balance().spendable == 10_000 - 1_234)
        #expect(try alice.pendingPayments().map(\.bundle) == [first.bundle])
        // Another request reusing the nonce is refused.
        let forged = try PaymentRequest(
            payee: request.payee, currency: request.currency, amount: 9, nonce: request.nonce, expiresAt: request.expiresAt)
        #expect(walletError { try alice.pay(forged) } == .requestNonceReused)
    }

    @Test func receivingIsIdempotentAndReplaysAreRefused() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [10_000])
        let bob = try h.wallet("bob")
        let request = try bob.createRequest(amount: 1_000)
        let sent = try alice.pay(request)
        let first = try bob.receive(sent.bundle, for: request.nonce)
        let second = try bob.receive(sent.bundle, for: request.nonce)
        #expect(first.receipt.encoded == second.receipt.encoded)
        #expect(try bob.balance().spendable == 1_000)

        let another = try bob.createRequest(amount: 1_000)
        #expect(walletError { try bob.receive(sent.bundle, for: another.nonce) } == .rejected(.nonceMismatch))

        let otherRequest = try bob.createRequest(amount: 1_000)
        let otherPayment = try alice.pay(otherRequest)
        let before = try WalletState(bob)
        #expect(walletError { try bob.receive(otherPayment.bundle, for: request.nonce) } == .requestAlreadyPaid)
        #expect(
            walletError { try bob.receive([1, 2, 3], for: request.nonce) }
                == .rejected(.unexpectedMessageType(expected: 0x05, found: 1)))
        #expect(
            walletError { try bob.receive(sent.bundle, for: Nonce(uncheckedBytes: Array(repeating: 0, count: 16))) }
                == .unknownRequest(Nonce(uncheckedBytes: Array(repeating: 0, count: 16))))
        #expect(try WalletState(bob) == before, "a refused payment changed the payee's wallet")
        // The good path still works: the other payment, for its own request.
        #expect(try bob.receive(otherPayment.bundle, for: otherRequest.nonce).amount == 1_000)
        #expect(try bob.balance().spendable == 2_000)
        #expect(try bob.history(HistoryFilter(direction: .received)).count == 2)
    }

    @Test func refusalsChangeNoState() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [1_000])
        let bob = try h.wallet("bob")
        let big = try bob.createRequest(amount: 5_000)
        let before = try WalletState(alice)
        #expect(walletError { try alice.pay(big) } == .insufficientFunds(available: 1_000, requested: 5_000, currency: h.eur))
        let own = try alice.createRequest(amount: 10)
        #expect(walletError { try alice.pay(own) } == .cannotPaySelf)
        let open = try bob.createRequest(amount: 0)
        #expect(walletError { try alice.pay(open) } == .amountRequired)
        #expect(walletError { try alice.pay(big, amount: 4) } == .invalidAmount("the request asks for 50.00 EUR, not 0.04 EUR"))
        let soon = try bob.createRequest(amount: 10, expiresIn: 5)
        h.clock.now += 5
        #expect(walletError { try alice.pay(soon) } == .requestExpired)
        // Balances, notes, history and pending payments exactly as before the refusals.
        #expect(try WalletState(alice) == before)
        // The good path still works after them.
        let fine = try bob.createRequest(amount: 400)
        #expect(try alice.pay(fine).amount == 400)
        #expect(try alice.balance().spendable == 600)
        #expect(try alice.pendingPayments().map(\.request.nonce) == [fine.nonce])
    }

    @Test func openAmountRequestsArePaidWithTheGivenAmount() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [1_000])
        let bob = try h.wallet("bob")
        let open = try bob.createRequest(amount: 0)
        let sent = try alice.pay(open, amount: 420)
        #expect(try bob.receive(sent.bundle, for: open.nonce).amount == 420)
    }

    /// Such notes show apart in the balance ("needs sync") and `pay` says to
    /// sync, never "purchase notes" while the wallet holds the value.
    @Test func notesNearExpiryOrAtTheHopLimitAreNotUsedAndSayToSync() throws {
        let h = try WalletHarness(maxHops: 1)
        let alice = try h.wallet("alice")
        try alice.deposit([try h.issuer.issue(1_000, to: alice.publicKey, now: h.clock.now, lifetime: 200)])
        let bob = try h.wallet("bob")
        // Expires within the 300 s safety margin: refused for paying, shown as needing a sync.
        #expect(walletError { try alice.pay(try bob.createRequest(amount: 100)) } == .needsRefresh(1_000, currency: h.eur))
        let before = try alice.balance()
        #expect(before.spendable == 0 && before.needsRefresh == 1_000 && before.total == 1_000)
        try h.fund(alice, [1_000])
        try h.transfer(600, from: alice, to: bob)
        // Bob's note has used its only hop: it must be refreshed online before it moves again.
        let carol = try h.wallet("carol")
        #expect(walletError { try bob.pay(try carol.createRequest(amount: 100)) } == .needsRefresh(600, currency: h.eur))
        #expect(try bob.balance().needsRefresh == 600)
        #expect(try bob.balance().spendable == 0)
        // Alice's change has also used its hop; with nothing held at all the error says to buy.
        #expect(walletError { try alice.pay(try carol.createRequest(amount: 100)) } == .needsRefresh(1_400, currency: h.eur))
        #expect(
            walletError { try carol.pay(try bob.createRequest(amount: 100)) }
                == .insufficientFunds(available: 0, requested: 100, currency: h.eur))
    }

    /// "Risk budget left" is exactly what `receive` still accepts (received
    /// notes counted once, reserved value not at all); it showed 10.00 left and took 50.00.
    @Test func riskBudgetIsWhatReceiveAccepts() throws {
        let h = try WalletHarness(maxOfflineHolding: 10_000)
        let alice = try h.wallet("alice", funds: [4_000, 8_000])
        let bob = try h.wallet("bob", funds: [2_000])
        try h.transfer(3_000, from: alice, to: bob)  // bob holds 5_000, 3_000 of it received
        let carol = try h.wallet("carol")
        _ = try bob.pay(try carol.createRequest(amount: 1_000))  // 1_000 reserved, never receipted
        let balance = try bob.balance()
        #expect(balance.holding == 4_000)
        #expect(balance.riskBudgetLeft == 6_000)
        #expect(balance.total == 5_000)
        // Exactly the budget is accepted; one cent more is refused.
        let tooMuch = try bob.createRequest(amount: balance.riskBudgetLeft + 1)
        let sentTooMuch = try alice.pay(tooMuch)
        #expect(
            walletError { try bob.receive(sentTooMuch.bundle, for: tooMuch.nonce) }
                == .holdingLimitExceeded(limit: 10_000, wouldHold: 10_001, currency: h.eur))
        let exact = try bob.createRequest(amount: balance.riskBudgetLeft)
        let dave = try h.wallet("dave", funds: [6_000])
        #expect(try bob.receive(try dave.pay(exact).bundle, for: exact.nonce).amount == 6_000)
        #expect(try bob.balance().riskBudgetLeft == 0)
    }

    /// A pending payment ends from the issuer's records, never stays reserved
    /// forever; a receipt that still arrives later completes it as usual.
    @Test func pendingPaymentsEndFromTheIssuersRecords() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [5_000])
        let bob = try h.wallet("bob")
        let r1 = try bob.createRequest(amount: 1_000)
        let p1 = try alice.pay(r1)
        let r2 = try bob.createRequest(amount: 2_000)
        _ = try alice.pay(r2)
        #expect(try alice.balance().reserved == 3_000)
        #expect(try alice.balance().total == 5_000)

        try alice.resolvePending(r1.nonce, .confirmedByIssuer)
        try alice.resolvePending(r2.nonce, .expiredUnredeemed)
        let balance = try alice.balance()
        #expect(balance.reserved == 0)
        #expect(balance.total == 2_000)
        #expect(try alice.pendingPayments().isEmpty)
        #expect(try alice.states(.reserved).isEmpty)
        let sent = try alice.history(HistoryFilter(direction: .sent))
        #expect(sent.map(\.status).sorted { $0.rawValue < $1.rawValue } == [.completed, .failed])
        // Resolving again changes nothing; the late receipt is still accepted and recorded.
        try alice.resolvePending(r1.nonce, .expiredUnredeemed)
        #expect(try alice.resolution(of: r1.nonce) == .confirmedByIssuer)
        let got = try bob.receive(p1.bundle, for: r1.nonce)
        #expect(try alice.confirm(receipt: got.receipt.encoded).status == .completed)
        #expect(try alice.resolution(of: r1.nonce) == nil)
        #expect(try alice.outgoingPayment(for: r1.nonce)?.receipt != nil)
    }

    @Test func theHoldingLimitCapsWhatAWalletAccepts() throws {
        let h = try WalletHarness(maxOfflineHolding: 5_000)
        let alice = try h.wallet("alice", funds: [4_000])
        let carol = try h.wallet("carol", funds: [4_000])
        let bob = try h.wallet("bob")
        try h.transfer(3_000, from: alice, to: bob)
        let request = try bob.createRequest(amount: 3_000)
        let sent = try carol.pay(request)
        let before = try WalletState(bob)
        #expect(
            walletError { try bob.receive(sent.bundle, for: request.nonce) }
                == .holdingLimitExceeded(limit: 5_000, wouldHold: 6_000, currency: Currency("EUR")!))
        #expect(try WalletState(bob) == before, "a payment over the holding limit changed the wallet")
        // Within the limit the same wallet still accepts.
        let fits = try bob.createRequest(amount: 2_000)
        let dave = try h.wallet("dave", funds: [2_000])
        #expect(try bob.receive(try dave.pay(fits).bundle, for: fits.nonce).amount == 2_000)
        #expect(try bob.balance().holding == 5_000)
    }

    @Test func depositsMustBeOwnedValidAndAreIdempotent() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice")
        let bob = try h.wallet("bob")
        let note = try h.issuer.issue(700, to: alice.publicKey, now: h.clock.now)
        #expect(try alice.deposit([note]) == 700)
        let deposited = try WalletState(alice)
        #expect(try alice.deposit([note]) == 0)
        #expect(try WalletState(alice) == deposited, "a repeated deposit changed the wallet")
        let bobBefore = try WalletState(bob)
        #expect(walletError { try bob.deposit([note]) } == .notOwnedByWallet)
        #expect(try WalletState(bob) == bobBefore)
        let stranger = try DevIssuer(currency: h.eur, now: h.clock.now)
        #expect(
            walletError { try alice.deposit([try stranger.issue(5, to: alice.publicKey, now: h.clock.now)]) }
                == .rejected(.unknownIssuerKey(stranger.issuingKey.publicKey.keyID)))
        #expect(try WalletState(alice) == deposited, "a refused deposit changed the wallet")
        // The good path still works for both.
        #expect(try bob.deposit([try h.issuer.issue(300, to: bob.publicKey, now: h.clock.now)]) == 300)
        #expect(try alice.deposit([try h.issuer.issue(50, to: alice.publicKey, now: h.clock.now)]) == 50)
        #expect(try alice.balance().spendable == 750)
    }

    /// A refused trust install leaves the wallet's trust as it was: a funded wallet keeps its
    /// limits, still pays with its issuer's notes, and still refuses the rogue issuer's.
    @Test func trustIsPinnedToTheFirstAuthority() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [2_000, 3_000])
        let bob = try h.wallet("bob")
        // A rogue issuer with other limits, so a leaked install would show in every balance.
        let rogue = try DevIssuer(currency: h.eur, now: h.clock.now, maxHops: 2, maxOfflineHolding: 4_000)
        let before = try WalletState(alice)
        #expect(
            walletError {
                try alice.installTrust(
                    authority: rogue.authority.publicKey, keyset: rogue.keyset.encoded, limits: rogue.limits.encoded)
            } == .authorityMismatch)
        #expect(
            walletError {
                try alice.installTrust(
                    authority: h.issuer.authority.publicKey, keyset: rogue.keyset.encoded, limits: h.issuer.limits.encoded)
            } == .rejected(.badAuthoritySignature))
        #expect(
            walletError {
                try alice.installTrust(
                    authority: h.issuer.authority.publicKey, keyset: h.issuer.keyset.encoded, limits: rogue.limits.encoded)
            } == .rejected(.badAuthoritySignature))
        #expect(try WalletState(alice) == before, "a refused trust install changed the wallet")
        #expect(try alice.limits() == h.issuer.limits)
        // Trust unchanged: the rogue's notes are still foreign, the issuer's still pay.
        #expect(
            walletError { try alice.deposit([try rogue.issue(500, to: alice.publicKey, now: h.clock.now)]) }
                == .rejected(.unknownIssuerKey(rogue.issuingKey.publicKey.keyID)))
        try h.transfer(4_500, from: alice, to: bob)
        #expect(try alice.balance().spendable == 500)
        #expect(try bob.balance().spendable == 4_500)
        // A wallet that never installed trust cannot pay at all.
        let bare = try Wallet.create(directory: h.path("bare"), keyCost: .testing, environment: h.environment())
        #expect(walletError { try bare.pay(try alice.createRequest(amount: 1)) } == .notConfigured)
    }

    @Test func unconfiguredWalletsSayWhatToDo() throws {
        let h = try WalletHarness()
        let w = try Wallet.create(directory: h.path("bare"), keyCost: .testing, environment: h.environment())
        #expect(walletError { try w.balance() } == .notConfigured)
        #expect(WalletError.notConfigured.description.contains("sync"))
    }

    /// Only the payee's own receipt for this very payment completes it: another signer, another
    /// payment id, amount or currency, an unknown request or an altered signature are refused
    /// and change nothing.
    @Test func receiptsThatDoNotMatchThePaymentAreRefused() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [5_000])
        let bob = try h.wallet("bob")
        let r1 = try bob.createRequest(amount: 100)
        let r2 = try bob.createRequest(amount: 200)
        let p1 = try alice.pay(r1)
        _ = try alice.pay(r2)
        let got1 = try bob.receive(p1.bundle, for: r1.nonce)
        let before = try WalletState(alice)
        // A receipt signed by someone else for the same nonce and payment id.
        let mallory = SoftwareSigner()
        let fake = try Receipt.sign(
            paymentID: p1.id, nonce: r1.nonce, currency: h.eur, amount: 100, receivedAt: 0, payee: mallory)
        #expect(
            walletError { try alice.confirm(receipt: fake.encoded) }
                == .rejected(.badReceipt("signed by another key than the payee's")))
        // Signed by the payee, but for another payment, another amount or another currency.
        let otherID = Digest32(uncheckedBytes: Array(repeating: 0x42, count: 32))
        let forOther = try Receipt.sign(
            paymentID: otherID, nonce: r1.nonce, currency: h.eur, amount: 100, receivedAt: 0, payee: bob.identity.signer)
        #expect(walletError { try alice.confirm(receipt: forOther.encoded) } == .rejected(.badReceipt("for another payment")))
        let tooLittle = try Receipt.sign(
            paymentID: p1.id, nonce: r1.nonce, currency: h.eur, amount: 99, receivedAt: 0, payee: bob.identity.signer)
        #expect(
            walletError { try alice.confirm(receipt: tooLittle.encoded) }
                == .rejected(.badReceipt("amount or currency differs from the payment")))
        let inDollars = try Receipt.sign(
            paymentID: p1.id, nonce: r1.nonce, currency: Currency("USD")!, amount: 100, receivedAt: 0, payee: bob.identity.signer)
        #expect(
            walletError { try alice.confirm(receipt: inDollars.encoded) }
                == .rejected(.badReceipt("amount or currency differs from the payment")))
        // For a request alice never paid.
        let stray = Nonce(uncheckedBytes: Array(repeating: 0x77, count: 16))
        let unknown = try Receipt.sign(
            paymentID: p1.id, nonce: stray, currency: h.eur, amount: 100, receivedAt: 0, payee: bob.identity.signer)
        #expect(walletError { try alice.confirm(receipt: unknown.encoded) } == .unknownPayment(stray))
        // The genuine receipt with its signature altered.
        var altered = got1.receipt.encoded
        altered[altered.count - 1] ^= 0x01
        #expect(walletError { try alice.confirm(receipt: altered) } == .rejected(.badReceipt("signature is invalid")))
        #expect(try WalletState(alice) == before, "a refused receipt changed the payer's wallet")
        // The genuine receipt completes the payment, idempotently.
        try alice.confirm(receipt: got1.receipt.encoded)
        try alice.confirm(receipt: got1.receipt.encoded)
        #expect(try alice.pendingPayments().map(\.request.nonce) == [r2.nonce])
        #expect(try alice.outgoingPayment(for: r1.nonce)?.receipt == got1.receipt)
    }
}
