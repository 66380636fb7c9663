import Crypto
import Foundation
import IssuerTesting
import OfflineNotes
import SQLStore
import TestSupport
import Testing
import WalletCore

@testable import IssuerCore

@Suite struct AccountTests {
    @Test(arguments: Backend.available)
    func registerLoginAndValidation(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let id = try await h.issuer.register(email: " Ann@Example.com ", password: "long enough password")
        #expect(try await h.issuer.login(email: "ann@example.com", password: "long enough password").id == id)
        #expect(
            await issuerError { try await h.issuer.login(email: "ann@example.com", password: "wrong password!!") }
                == .badCredentials)
        #expect(
            await issuerError { try await h.issuer.login(email: "nobody@example.com", password: "long enough password") }
                == .badCredentials)
        #expect(
            await issuerError { try await h.issuer.register(email: "ann@example.com", password: "another password") }
                == .emailTaken)
        #expect(
            await issuerError { try await h.issuer.register(email: "not-an-email", password: "long enough password") }?.code
                == "invalid_field")
        #expect(
            await issuerError { try await h.issuer.register(email: "b@example.com", password: "short") }?.code == "invalid_field")
        #expect(await issuerError { try await h.issuer.login(email: "system:float", password: "") } == .badCredentials)
    }

    @Test(arguments: Backend.available)
    func keyRegistrationNeedsProofOfPossession(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let a = try await h.issuer.register(email: "a@example.com", password: "long enough password")
        let b = try await h.issuer.register(email: "b@example.com", password: "long enough password")
        let key = SoftwareSigner()
        let challenge = h.issuer.keyChallenge(account: a)
        func sign(_ signer: SoftwareSigner, _ challenge: [UInt8], _ account: Int64) throws -> [UInt8] {
            try signer.sign(KeyRegistration.message(challenge: challenge, account: account))
        }
        // Signed by another key, issued to another account, expired, altered: all refused.
        #expect(
            await issuerError {
                try await h.issuer.registerWalletKey(
                    account: a, key: key.publicKey, challenge: challenge, signature: try sign(SoftwareSigner(), challenge, a))
            }?.code == "bad_challenge")
        #expect(
            await issuerError {
                try await h.issuer.registerWalletKey(
                    account: b, key: key.publicKey, challenge: challenge, signature: try sign(key, challenge, b))
            }?.code == "bad_challenge")
        var altered = challenge
        altered[10] ^= 1
        #expect(
            await issuerError {
                try await h.issuer.registerWalletKey(
                    account: a, key: key.publicKey, challenge: altered, signature: try sign(key, altered, a))
            }?.code == "bad_challenge")
        h.clock.now += 301
        #expect(
            await issuerError {
                try await h.issuer.registerWalletKey(
                    account: a, key: key.publicKey, challenge: challenge, signature: try sign(key, challenge, a))
            } == .badChallenge("expired"))
        h.clock.now -= 301
        try await h.issuer.registerWalletKey(
            account: a, key: key.publicKey, challenge: challenge, signature: try sign(key, challenge, a))
        try await h.issuer.registerWalletKey(
            account: a, key: key.publicKey, challenge: challenge, signature: try sign(key, challenge, a))
        let cb = h.issuer.keyChallenge(account: b)
        #expect(
            await issuerError {
                try await h.issuer.registerWalletKey(
                    account: b, key: key.publicKey, challenge: cb, signature: try sign(key, cb, b))
            } == .walletKeyTaken)
    }
}

@Suite struct PurchaseTests {
    @Test(arguments: Backend.available)
    func purchaseDebitsOnceAndReplaysTheSameNotes(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (account, wallet) = try await h.user("ann", funds: 20_000)
        let notes = try await h.issuer.purchase(
            account: account, walletKey: wallet.publicKey, amount: 5_000, idempotencyKey: "purchase-0001")
        let again = try await h.issuer.purchase(
            account: account, walletKey: wallet.publicKey, amount: 5_000, idempotencyKey: "purchase-0001")
        #expect(notes == again)
        #expect(try await h.balance(account) == 15_000)
        #expect(try await h.issuer.outstandingFloat() == 5_000)
        #expect(
            await issuerError {
                try await h.issuer.purchase(
                    account: account, walletKey: wallet.publicKey, amount: 6_000, idempotencyKey: "purchase-0001")
            } == .idempotencyConflict)
        #expect(try wallet.deposit(notes) == 5_000)
        try await h.expectBooksBalance()
    }

    @Test(arguments: Backend.available)
    func purchaseRefusals(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (account, wallet) = try await h.user("ann", funds: 200_000)
        let (poor, poorWallet) = try await h.user("bob", funds: 50)
        let before = try await Books.of(h.issuer)
        let stranger = SoftwareSigner()
        #expect(
            await issuerError {
                try await h.issuer.purchase(
                    account: account, walletKey: stranger.publicKey, amount: 100, idempotencyKey: "k-00000001")
            } == .walletKeyNotRegistered)
        #expect(
            await issuerError {
                try await h.issuer.purchase(
                    account: account, walletKey: wallet.publicKey, amount: 100_001, idempotencyKey: "k-00000002")
            } == .holdingLimitExceeded(limit: 100_000, outstanding: 0, requested: 100_001, currency: h.eur))
        #expect(
            await issuerError {
                try await h.issuer.purchase(
                    account: account, walletKey: wallet.publicKey, amount: 0, idempotencyKey: "k-00000003")
            }?.code == "invalid_field")
        #expect(
            await issuerError {
                try await h.issuer.purchase(account: account, walletKey: wallet.publicKey, amount: 10, idempotencyKey: "short")
            }?.code == "invalid_field")
        #expect(
            await issuerError {
                try await h.issuer.purchase(
                    account: poor, walletKey: poorWallet.publicKey, amount: 51, idempotencyKey: "k-00000004")
            } == .insufficientFunds(balance: 50, requested: 51, currency: h.eur))
        // Every account, journal line, note and idempotency record exactly as before.
        #expect(try await Books.of(h.issuer) == before)
        try await h.expectBooksBalance()
        // The good path still works: the poor account buys what it can pay.
        #expect(
            try await h.issuer.purchase(account: poor, walletKey: poorWallet.publicKey, amount: 50, idempotencyKey: "k-00000006")
                .count >= 1)
        #expect(try await h.balance(poor) == 0)
        try await h.issuer.setFrozen(true, account: account, by: poor, reason: "test freeze")
        let frozen = try await Books.of(h.issuer)
        #expect(
            await issuerError {
                try await h.issuer.purchase(
                    account: account, walletKey: wallet.publicKey, amount: 10, idempotencyKey: "k-00000005")
            } == .accountFrozenByOperator)
        #expect(try await Books.of(h.issuer) == frozen)
        #expect(try await h.balance(account) == 200_000)
        try await h.expectBooksBalance()
    }

    @Test(arguments: Backend.available)
    func concurrentPurchasesNeverOverdraw(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (account, wallet) = try await h.user("ann", funds: 10_000)
        let results = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<20 {
                group.addTask {
                    (try? await h.issuer.purchase(
                        account: account, walletKey: wallet.publicKey, amount: 1_000, idempotencyKey: "concurrent-\(i)")) != nil
                }
            }
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(results == 10)
        #expect(try await h.balance(account) == 0)
        try await h.expectBooksBalance()
    }

    @Test(arguments: Backend.available)
    func onlineSendMovesMoneyOnce(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (a, _) = try await h.user("ann", funds: 1_000)
        let bEmail = "bob-send@example.com"
        let b = try await h.issuer.register(email: bEmail, password: "long enough password")
        _ = try await h.issuer.send(from: a, toEmail: bEmail, amount: 400, idempotencyKey: "send-00001")
        _ = try await h.issuer.send(from: a, toEmail: bEmail, amount: 400, idempotencyKey: "send-00001")
        #expect(try await h.balance(a) == 600)
        #expect(try await h.balance(b) == 400)
        #expect(
            await issuerError { try await h.issuer.send(from: a, toEmail: bEmail, amount: 601, idempotencyKey: "send-00002") }
                == .insufficientFunds(balance: 600, requested: 601, currency: h.eur))
        #expect(
            await issuerError {
                try await h.issuer.send(from: a, toEmail: "nobody@x.org", amount: 1, idempotencyKey: "send-00003")
            }?.code == "invalid_field")
        try await h.expectBooksBalance()
    }
}

@Suite struct RedemptionTests {
    @Test(arguments: Backend.available)
    func redeemingCreditsEachStateOnce(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (_, alice) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (bob, bobWallet) = try await h.user("bob")
        let chains = try h.pay(3_000, from: alice, to: bobWallet).map(\.encoded)
        #expect(try await h.issuer.redeem(account: bob, chains: chains) == [.credited(amount: 3_000)])
        #expect(try await h.issuer.redeem(account: bob, chains: chains) == [.alreadyCredited(amount: 3_000)])
        #expect(try await h.balance(bob) == 3_000)
        #expect(try await h.issuer.outstandingFloat() == 7_000)
        let status = try await h.issuer.stateStatus([
            try Chain(decoding: chains[0]).heldRef, try Chain(decoding: chains[0]).note.stateRef,
            StateRef(uncheckedBytes: Array(repeating: 0, count: 32)),
        ])
        #expect(Set(status.values) == [.redeemed, .spent, .unknown])
        #expect(try await h.issuer.fraudCases().isEmpty)
        try await h.expectBooksBalance()
    }

    @Test(arguments: Backend.available)
    func badChainsAreRefusedWithoutChangingAnything(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, aliceWallet) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (bob, bobWallet) = try await h.user("bob")
        let chain = try h.pay(3_000, from: aliceWallet, to: bobWallet)[0].encoded
        var forged = chain
        forged[forged.count - 10] ^= 1
        let before = try await Books.of(h.issuer)
        let results = try await h.issuer.redeem(account: bob, chains: [Array(chain.dropLast()), forged, [1, 2, 3]])
        #expect(
            results.map { if case .invalid(let code, _) = $0 { code } else { "?" } } == [
                "truncated", "bad_owner_signature", "unexpected_message_type",
            ])
        // The payer cannot redeem the payee's output.
        #expect(
            try await h.issuer.redeem(account: alice, chains: [chain]).first.map {
                if case .invalid(let c, _) = $0 { c } else { "?" }
            } == "not_owner")
        // Every account, journal line, note, spent state and fraud case exactly as before.
        #expect(try await Books.of(h.issuer) == before)
        try await h.expectBooksBalance()
        // The good path still works: the payee redeems the genuine chain, once.
        #expect(try await h.issuer.redeem(account: bob, chains: [chain]) == [.credited(amount: 3_000)])
        #expect(try await h.balance(bob) == 3_000)
        try await h.expectBooksBalance()
    }

    /// 100 concurrent redemptions of one chain from 2 accounts through 2 issuer
    /// instances sharing one database credit exactly once.
    @Test(arguments: Backend.available)
    func concurrentRedemptionsFromTwoProcessesCreditOnce(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let other = try await h.secondProcess()
        let (_, alice) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (bob, bobWallet) = try await h.user("bob")
        let (carol, _) = try await h.user("carol")
        let chain = try h.pay(2_500, from: alice, to: bobWallet)[0].encoded
        let results = try await withThrowingTaskGroup(of: RedeemResult.self) { group in
            for i in 0..<100 {
                let issuer = i % 2 == 0 ? h.issuer : other
                let account = i % 4 < 2 ? bob : carol
                group.addTask { try await issuer.redeem(account: account, chains: [chain])[0] }
            }
            return try await group.reduce(into: [RedeemResult]()) { $0.append($1) }
        }
        #expect(results.filter { $0 == .credited(amount: 2_500) }.count == 1)
        #expect(results.filter { $0 == .alreadyCredited(amount: 2_500) }.count == 49)
        #expect(results.filter { if case .invalid(let c, _) = $0 { c == "not_owner" } else { false } }.count == 50)
        #expect(try await h.balance(bob) == 2_500)
        #expect(try await h.balance(carol) == 0)
        try await h.expectBooksBalance()
    }

    @Test(arguments: Backend.available)
    func aDoubleSpendNamesTheCheaterAndCreditsTheLaterReceiver(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let d = try await h.doubleSpend()
        let (aliceAccount, alice, bob, carol, toBob) = (d.aliceAccount, d.alice, d.bob, d.carol, d.toBob)
        #expect(try await h.issuer.redeem(account: bob, chains: [toBob]) == [.credited(amount: 4_000)])
        let carolResult = try await h.issuer.redeem(account: carol, chains: [d.toCarol])
        guard case .conflict(let caseID, let credited) = carolResult[0] else {
            Issue.record("expected a conflict, got \(carolResult)")
            return
        }
        #expect(credited == 3_000)
        let cases = try await h.issuer.fraudCases()
        #expect(cases.count == 1)
        #expect(cases[0].id == caseID)
        #expect(cases[0].cheaterKey == alice.publicKey)
        #expect(cases[0].cheaterAccount == aliceAccount)
        #expect(cases[0].firstTransfer != nil && cases[0].secondTransfer != nil)
        #expect(try await h.issuer.account(aliceAccount).frozen)
        #expect(try await h.balance(aliceAccount) == -3_000)
        #expect(try await h.balance(carol) == 3_000)
        #expect(try await h.balance(bob) == 4_000)
        #expect(try await h.issuer.accountsInDebt().map(\.id) == [aliceAccount])
        // Redeeming Carol's chain again changes nothing.
        #expect(try await h.issuer.redeem(account: carol, chains: [d.toCarol]) == [.alreadyCredited(amount: 3_000)])
        #expect(try await h.balance(aliceAccount) == -3_000)
        try await h.expectBooksBalance()
    }

    @Test(arguments: Backend.available)
    func redeemingAStateYouAlreadySpentIsFraud(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend, policy: .rejectLaterReceiver)
        let (_, alice) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (bob, bobWallet) = try await h.user("bob")
        let (carol, carolWallet) = try await h.user("carol")
        let bobChain = try h.pay(5_000, from: alice, to: bobWallet)[0].encoded
        let carolChain = try h.pay(5_000, from: bobWallet, to: carolWallet)[0].encoded
        #expect(try await h.issuer.redeem(account: carol, chains: [carolChain]) == [.credited(amount: 5_000)])
        let result = try await h.issuer.redeem(account: bob, chains: [bobChain])
        guard case .conflict(_, 0) = result[0] else {
            Issue.record("expected an uncredited conflict, got \(result)")
            return
        }
        #expect(try await h.balance(bob) == 0)
        #expect(try await h.issuer.fraudCases().first?.cheaterKey == bobWallet.publicKey)
        try await h.expectBooksBalance()
    }

    /// Seeded (SplitMix64), so a failing economy replays exactly: the seed is in the test's
    /// arguments and in every message.
    @Test(arguments: Backend.available, [UInt64(0x5EED_0001), 0x5EED_0002])
    func anHonestRandomEconomyOpensNoFraudCases(_ backend: Backend, seed: UInt64) async throws {
        let h = try await IssuerHarness(backend)
        var users: [(account: Int64, wallet: Wallet)] = []
        for i in 0..<4 { users.append(try await h.user("u\(i)", funds: 20_000, purchase: 5_000)) }
        var rng = SplitMix64(seed: seed)
        var payments = 0
        for _ in 0..<30 {
            let from = Int.random(in: 0..<4, using: &rng)
            let to = (from + Int.random(in: 1...3, using: &rng)) % 4
            let payable = try users[from].wallet.balance().largestPayment
            guard payable > 0 else { continue }
            try h.pay(UInt64.random(in: 1...payable, using: &rng), from: users[from].wallet, to: users[to].wallet)
            payments += 1
        }
        // An economy where hardly anyone could pay would test nothing.
        #expect(payments >= 20, "seed \(seed): only \(payments) of 30 payments were made")
        // Everyone redeems everything they hold.
        var credited: UInt64 = 0
        for user in users {
            let held = try user.wallet.states().filter { $0.status == .available || $0.status == .received }
            if held.isEmpty { continue }
            for batch in stride(from: 0, to: held.count, by: 32) {
                let results = try await h.issuer.redeem(
                    account: user.account, chains: held[batch..<min(batch + 32, held.count)].map(\.chain.encoded))
                for r in results {
                    guard case .credited(let amount) = r else {
                        Issue.record("seed \(seed): honest redemption gave \(r)")
                        continue
                    }
                    credited += amount
                }
            }
        }
        #expect(credited == 20_000)
        #expect(try await h.issuer.fraudCases().isEmpty)
        #expect(try await h.issuer.outstandingFloat() == 0)
        try await h.expectBooksBalance()
    }

    @Test(arguments: Backend.available)
    func expiredNotesRefundTheirPurchaserAfterTheGracePeriod(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, aliceWallet) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (bob, bobWallet) = try await h.user("bob")
        let chain = try h.pay(4_000, from: aliceWallet, to: bobWallet)[0].encoded
        // Past expiry but within grace: redemption still works.
        h.clock.now += 30 * 86_400 + 10
        #expect(try await h.issuer.redeem(account: bob, chains: [chain]) == [.credited(amount: 4_000)])
        #expect(try await h.issuer.sweepExpired() == 0)
        h.clock.now += 14 * 86_400
        #expect(try await h.issuer.sweepExpired() == 1)
        #expect(try await h.balance(alice) == 6_000)
        #expect(try await h.issuer.outstandingFloat() == 0)
        // After the sweep the change can no longer be redeemed.
        let change = try #require(try aliceWallet.states(.available).first?.chain.encoded)
        #expect(
            try await h.issuer.redeem(account: alice, chains: [change]).first.map {
                if case .invalid(let c, _) = $0 { c } else { "?" }
            } == "expired")
        try await h.expectBooksBalance()
    }

    @Test(arguments: Backend.available)
    func announcedTransfersBlockALaterConflictingSpend(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, aliceWallet) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (_, bobWallet) = try await h.user("bob")
        let note = try #require(try aliceWallet.states(.available).first?.chain)
        let toBob = try h.pay(1_000, from: aliceWallet, to: bobWallet)[0]
        #expect(try await h.issuer.announce(account: alice, chain: toBob.encoded) == .credited(amount: 0))
        #expect(try await h.issuer.announce(account: alice, chain: toBob.encoded) == .credited(amount: 0))
        let other = try Transfer.sign(
            input: note.heldRef, outputs: [TransferOutput(owner: aliceWallet.publicKey, amount: 10_000)],
            nonce: Nonce(uncheckedBytes: Array(repeating: 1, count: 16)), createdAt: h.clock.now,
            signer: aliceWallet.identity.signer)
        guard case .conflict = try await h.issuer.announce(account: alice, chain: note.appending(other, holding: 0).encoded)
        else {
            Issue.record("conflicting announcement accepted")
            return
        }
        #expect(try await h.issuer.fraudCases().count == 1)
    }

    /// A payee that caught a double spend offline reports the proof: the case names the signer,
    /// freezes its account and credits no one; forged and non-conflicting proofs are refused.
    @Test(arguments: Backend.available)
    func fraudProofsReportedByAPayeeNameTheCheater(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, aliceWallet) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (carol, _) = try await h.user("carol")
        let note = try #require(try aliceWallet.states(.available).first?.chain)
        func transfer(_ amount: UInt64, seed: UInt8, signer: any MessageSigner) throws -> Transfer {
            try Transfer.sign(
                input: note.heldRef, outputs: [TransferOutput(owner: aliceWallet.publicKey, amount: amount)],
                nonce: Nonce(uncheckedBytes: Array(repeating: seed, count: 16)), createdAt: h.clock.now, signer: signer)
        }
        let first = try transfer(10_000, seed: 1, signer: aliceWallet.identity.signer)
        let second = try transfer(10_000, seed: 2, signer: aliceWallet.identity.signer)
        let before = try await h.issuer.account(carol).balance

        await #expect(throws: IssuerError.self, "same transfer twice is no proof") {
            try await h.issuer.reportFraud(account: carol, chain: note.encoded, first: first.encoded, second: first.encoded)
        }
        let forged = try transfer(10_000, seed: 3, signer: SoftwareSigner())
        await #expect(throws: IssuerError.self, "a transfer not signed by the owner proves nothing") {
            try await h.issuer.reportFraud(account: carol, chain: note.encoded, first: first.encoded, second: forged.encoded)
        }
        #expect(try await h.issuer.fraudCases().isEmpty)

        guard
            case .conflict(let id, let credited) = try await h.issuer.reportFraud(
                account: carol, chain: note.encoded, first: first.encoded, second: second.encoded)
        else {
            Issue.record("a valid proof opened no case")
            return
        }
        #expect(credited == 0)
        // Reporting again finds the same case.
        #expect(
            try await h.issuer.reportFraud(account: carol, chain: note.encoded, first: first.encoded, second: second.encoded)
                == .conflict(fraudCase: id, credited: 0))
        let cases = try await h.issuer.fraudCases()
        #expect(cases.count == 1)
        #expect(cases.first?.cheaterAccount == alice)
        #expect(try await h.issuer.account(alice).frozen)
        #expect(try await h.issuer.account(carol).balance == before)
        #expect(try await h.issuer.checkLedger().isEmpty)
    }
}

@Suite struct PostgresAvailability {
    @Test func postgresRunsWhenRequired() {
        if ProcessInfo.processInfo.environment["OW_REQUIRE_POSTGRES"] == "1" {
            #expect(Backend.url != nil, "OW_REQUIRE_POSTGRES=1 but OW_TEST_POSTGRES_URL is not set")
        }
    }
}

@Suite struct RefreshTests {
    @Test(arguments: Backend.available)
    func refreshSwapsChainsForFreshNotesOnce(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (_, alice) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (bob, bobWallet) = try await h.user("bob")
        let chains = try h.pay(6_000, from: alice, to: bobWallet).map(\.encoded)
        let first = try await h.issuer.refresh(account: bob, walletKey: bobWallet.publicKey, chains: chains)
        let again = try await h.issuer.refresh(account: bob, walletKey: bobWallet.publicKey, chains: chains)
        #expect(first.results == [.credited(amount: 6_000)])
        #expect(again.results == [.alreadyCredited(amount: 6_000)])
        #expect(first.notes == again.notes)
        #expect(first.notes.map(\.hops) == [0])
        #expect(first.notes.first?.heldOutput?.amount == 6_000)
        #expect(try await h.balance(bob) == 0)
        #expect(try await h.issuer.outstandingFloat() == 10_000)
        try await h.expectBooksBalance()
    }
}

@Suite struct RateLimitTests {
    /// Two processes on one database share a bucket once their hits are published.
    @Test(arguments: Backend.available)
    func rateLimitsAreSharedThroughTheDatabase(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let other = try await h.secondProcess()
        for _ in 0..<3 { #expect(try await h.issuer.rateLimit(bucket: "ip:1", limit: 4, windowSeconds: 60) == nil) }
        try await h.issuer.flushRateLimits()
        #expect(try await other.rateLimit(bucket: "ip:1", limit: 4, windowSeconds: 60) == nil)
        try await other.flushRateLimits()
        // The other process now knows of all four hits.
        #expect(try await other.rateLimit(bucket: "ip:1", limit: 4, windowSeconds: 60) != nil)
        #expect(try await other.rateLimit(bucket: "ip:2", limit: 4, windowSeconds: 60) == nil)
    }
}

@Suite struct BatchTests {
    /// Both sides of a double spend redeemed at the same time, many times over, so that they
    /// meet inside one group-commit batch: one fraud case, each state credited once, books balanced.
    @Test(arguments: Backend.available)
    func aDoubleSpendInsideOneBatchIsCaughtOnce(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let d = try await h.doubleSpend()
        let (aliceAccount, bob, carol, toBob, toCarol) = (d.aliceAccount, d.bob, d.carol, d.toBob, d.toCarol)
        let results = try await withThrowingTaskGroup(of: (Int64, RedeemResult).self) { group in
            for i in 0..<40 {
                group.addTask {
                    i % 2 == 0
                        ? (bob, try await h.issuer.redeem(account: bob, chains: [toBob])[0])
                        : (carol, try await h.issuer.redeem(account: carol, chains: [toCarol])[0])
                }
            }
            return try await group.reduce(into: [(Int64, RedeemResult)]()) { $0.append($1) }
        }
        let credits = results.map(\.1.creditedAmount).reduce(0, +)
        #expect(credits == 7_000, "each side credited exactly once")
        #expect(try await h.issuer.fraudCases().count == 1)
        #expect(try await h.balance(bob) == 4_000)
        #expect(try await h.balance(carol) == 3_000)
        // Whoever came second was paid by the cheater.
        #expect([-3_000, -4_000].contains(try await h.balance(aliceAccount)))
        #expect(try await h.issuer.account(aliceAccount).frozen)
        try await h.expectBooksBalance()
    }
}

@Suite struct LockOrderTests {
    /// Two transactions that both wrote journal rows (foreign-key KEY SHARE locks on the same
    /// accounts) and then apply balance changes must not deadlock: the row locks taken by
    /// `Ledger.Deltas.apply` must not conflict with KEY SHARE. Deterministic: a barrier makes
    /// both hold their journal rows before either applies. PostgreSQL only (SQLite has one writer).
    @Test(.enabled(if: Backend.url != nil))
    func balanceLocksDoNotConflictWithJournalForeignKeys() async throws {
        let h = try await IssuerHarness(.postgres)
        let a = try await h.issuer.register(email: "a@lock.test", password: "long enough password")
        let b = try await h.issuer.register(email: "b@lock.test", password: "long enough password")
        let barrier = Barrier(parties: 2)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (first, second) in [(a, b), (b, a)] {
                group.addTask {
                    try await h.database.transaction { conn in
                        // Journal rows first: KEY SHARE locks on both accounts through the foreign key.
                        let entry = Array(repeating: UInt8(truncatingIfNeeded: first), count: 16)
                        try await conn.execute(
                            "INSERT INTO journal(entry, account_id, amount, kind, created_at) VALUES (?, ?, -1, 'test', 0), (?, ?, 1, 'test', 0)",
                            entry, first, entry, second)
                        await barrier.arrive()
                        // Then the balances, as every redemption batch does.
                        let deltas = Ledger.Deltas(shard: 0)
                        deltas.byAccount = [first: -1, second: 1]
                        try await deltas.apply(conn)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect((h.database as? PostgresStore)?.conflictRetries == 0)
        try await h.expectBooksBalance()
    }
}

/// Waits until `parties` tasks have arrived (then lets everyone through, also on retries).
actor Barrier {
    let parties: Int
    var arrived = 0
    var waiting: [CheckedContinuation<Void, Never>] = []
    init(parties: Int) { self.parties = parties }
    func arrive() async {
        arrived += 1
        if arrived >= parties {
            waiting.forEach { $0.resume() }
            waiting = []
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}
