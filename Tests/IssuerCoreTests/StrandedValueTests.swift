import Foundation
import IssuerCore
import IssuerTesting
import OfflineNotes
import Testing
import WalletCore

/// No signed value ends up unreachable, a restore never makes an
/// honest user look like a cheater, and a payment whose receipt was lost is settled from the
/// issuer's records (docs/protocol.md §5.2).
@Suite struct StrandedValueTests {
    /// Rule 2: a payment signed before its request expired is accepted and redeemed however
    /// late it reaches the payee.
    @Test(arguments: Backend.available)
    func aPaymentSignedInTimeIsAcceptedLate(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (_, alice) = try await h.user("alice", funds: 5_000, purchase: 5_000)
        let (bob, bobWallet) = try await h.user("bob")
        let request = try bobWallet.createRequest(amount: 1_200, expiresIn: 60)
        let sent = try alice.pay(request)
        h.clock.now += 3_600  // delivered an hour after the request expired
        let got = try bobWallet.receive(sent.bundle, for: request.nonce)
        try alice.confirm(receipt: got.receipt.encoded)
        let chains = try PaymentBundle(decoding: sent.bundle).chains.map(\.encoded)
        #expect(try await h.issuer.redeem(account: bob, chains: chains) == [.credited(amount: 1_200)])
        #expect(try alice.balance().reserved == 0)
        try await h.expectBooksBalance()
    }

    /// Rule 4: a note that expires unredeemed goes to the last holder the issuer knows — the
    /// payee of an announced transfer — not to the purchaser.
    @Test(arguments: Backend.available)
    func expiredValueGoesToTheLastKnownHolder(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (aliceAccount, alice) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (bob, bobWallet) = try await h.user("bob")
        // Alice pays Bob 3,000 and announces it; Bob never redeems.
        let toBob = try alice.pay(try bobWallet.createRequest(amount: 3_000))
        for chain in try PaymentBundle(decoding: toBob.bundle).chains {
            _ = try await h.issuer.announce(account: aliceAccount, chain: chain.encoded)
        }
        h.clock.now += 45 * 86_400  // past expiry (30 days) and grace (14 days)
        #expect(try await h.issuer.sweepExpired() == 1)
        // Bob's 3,000 went to Bob (the purchaser would have had all 10,000 before); Alice's
        // 7,000 change, hers and unspent, came back to Alice.
        #expect(try await h.balance(bob) == 3_000)
        #expect(try await h.balance(aliceAccount) == 7_000)
        try await h.expectBooksBalance()
    }

    /// Rule 4: the payee's key is registered nowhere, so it can never redeem; the value goes
    /// to the account of the key that signed it over (here not the purchaser).
    @Test(arguments: Backend.available)
    func expiredValueOfAnUnregisteredPayeeReturnsToThePayer(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (purchaser, alice) = try await h.user("alice", funds: 4_000, purchase: 4_000)
        let (middleAccount, middle) = try await h.user("middle")
        try h.pay(4_000, from: alice, to: middle)
        let clock = h.clock
        let nowhere = try Wallet.create(
            directory: h.scratch.path("nowhere-" + UUID().uuidString), keyCost: .testing,
            environment: WalletEnvironment(now: { clock.now }))
        try nowhere.installTrust(
            authority: h.issuer.keyring.authority.publicKey, keyset: h.issuer.keyset.encoded, limits: h.issuer.limits.encoded)
        let sent = try middle.pay(try nowhere.createRequest(amount: 4_000))
        for chain in try PaymentBundle(decoding: sent.bundle).chains {
            _ = try await h.issuer.announce(account: middleAccount, chain: chain.encoded)
        }
        h.clock.now += 45 * 86_400
        #expect(try await h.issuer.sweepExpired() == 1)
        #expect(try await h.balance(middleAccount) == 4_000)
        #expect(try await h.balance(purchaser) == 0)
        try await h.expectBooksBalance()
    }

    /// Rule 4: two payers pay one displayed request. The payee takes the first payment and
    /// refuses the second (`request_already_paid`); the second payer announces its payment
    /// (no receipt came back). At expiry the refused payment goes back to its payer, not to
    /// the payee, who keeps exactly what was asked.
    @Test(arguments: Backend.available)
    func aPaymentThePayeeRefusedGoesBackToItsPayer(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (x1Account, x1) = try await h.user("x1", funds: 5_000, purchase: 5_000)
        let (x2Account, x2) = try await h.user("x2", funds: 5_000, purchase: 5_000)
        let (shop, shopWallet) = try await h.user("shop")
        let request = try shopWallet.createRequest(amount: 300)
        let first = try x1.pay(request)
        let second = try x2.pay(request)
        _ = try shopWallet.receive(first.bundle, for: request.nonce)
        #expect(throws: WalletError.requestAlreadyPaid) { try shopWallet.receive(second.bundle, for: request.nonce) }
        // The shop redeems what it took; the refused payer announces its payment.
        let taken = try PaymentBundle(decoding: first.bundle).chains.map(\.encoded)
        #expect(try await h.issuer.redeem(account: shop, chains: taken) == [.credited(amount: 300)])
        for chain in try PaymentBundle(decoding: second.bundle).chains {
            _ = try await h.issuer.announce(account: x2Account, chain: chain.encoded)
        }
        h.clock.now += 45 * 86_400  // past expiry (30 days) and grace (14 days)
        #expect(try await h.issuer.sweepExpired() == 2)
        #expect(try await h.balance(shop) == 300, "the shop kept the refused payment")
        #expect(try await h.balance(x2Account) == 5_000, "the refused payer lost its payment")
        #expect(try await h.balance(x1Account) == 5_000 - 300)
        try await h.expectBooksBalance()
    }

    /// Rule 4: a bundle of several chains is one payment: its transfers share the request and
    /// the signer, and an unredeemed one is not taken for a refused payment because a sibling
    /// was redeemed.
    @Test(arguments: Backend.available)
    func theChainsOfOnePaymentDoNotCountAsAnotherPayment(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (payerAccount, payer) = try await h.user("payer", funds: 5_000)
        for _ in 0..<2 {
            try payer.deposit(
                try await h.issuer.purchase(
                    account: payerAccount, walletKey: payer.publicKey, amount: 1_000, idempotencyKey: UUID().uuidString))
        }
        let (shop, shopWallet) = try await h.user("shop")
        let request = try shopWallet.createRequest(amount: 2_000)
        let sent = try payer.pay(request)
        let chains = try PaymentBundle(decoding: sent.bundle).chains
        #expect(chains.count == 2)
        _ = try shopWallet.receive(sent.bundle, for: request.nonce)
        // The shop redeems one chain of the payment; the payer announces both.
        #expect(try await h.issuer.redeem(account: shop, chains: [chains[0].encoded]) == [.credited(amount: 1_000)])
        for chain in chains { _ = try await h.issuer.announce(account: payerAccount, chain: chain.encoded) }
        h.clock.now += 45 * 86_400
        _ = try await h.issuer.sweepExpired()
        #expect(try await h.balance(shop) == 2_000, "the unredeemed chain of the shop's own payment went back to the payer")
        #expect(try await h.balance(payerAccount) == 3_000)
        try await h.expectBooksBalance()
    }

    /// Rule 5: the old device pays a state the restore exchanged; the payee is paid from the
    /// account, the case is a restore conflict, and the account is not frozen.
    @Test(arguments: Backend.available)
    func aRestoreConflictPaysThePayeeWithoutFreezing(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, oldDevice) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (bob, bobWallet) = try await h.user("bob")
        let backup = try oldDevice.exportBackup(passphrase: "correct horse battery", cost: .testing)
        let clock = h.clock
        let restored = try Wallet.restore(
            backup, passphrase: "correct horse battery", into: h.scratch.path("restored-" + UUID().uuidString),
            keyCost: .testing, environment: WalletEnvironment(now: { clock.now }))
        try await h.registerKey(account: alice, signer: restored.identity.signer)
        let chains = try restored.restoredStates().map(\.chain.encoded)
        let (results, fresh) = try await h.issuer.refresh(
            account: alice, walletKey: restored.publicKey, chains: chains, restore: true)
        #expect(results == [.credited(amount: 10_000)])
        #expect(
            try restored.applyRestoreExchange([try #require(try restored.restoredStates().first).ref: .exchanged], fresh: fresh)
                == 10_000)
        #expect(try restored.balance().spendable == 10_000)

        // The old device, not knowing, pays Bob 2,500 offline; Bob redeems.
        let paid = try h.pay(2_500, from: oldDevice, to: bobWallet)
        let redeemed = try await h.issuer.redeem(account: bob, chains: paid.map(\.encoded))
        guard case .conflict(let caseID, let credited) = redeemed.first else {
            Issue.record("expected a conflict, got \(redeemed)")
            return
        }
        #expect(credited == 2_500)
        #expect(try await h.balance(bob) == 2_500)
        #expect(try await h.balance(alice) == -2_500)
        #expect(try await !h.issuer.account(alice).frozen)
        let cases = try await h.issuer.fraudCases()
        #expect(cases.first { $0.id == caseID }?.status == "restore_conflict")
        try await h.expectBooksBalance()

        // A retry of the exchange answers the same notes, and nothing is credited twice.
        let again = try await h.issuer.refresh(account: alice, walletKey: restored.publicKey, chains: chains, restore: true)
        #expect(again.results == [.alreadyCredited(amount: 10_000)])
        #expect(again.notes.map(\.encoded) == fresh.map(\.encoded))
        try await h.expectBooksBalance()
    }

    /// Rule 5 through the other door: the old device's sync announces its payment before the
    /// payee redeems. The announcement opens the restore conflict (no freeze), and the payee's
    /// redemption is then paid once, from the account.
    @Test(arguments: Backend.available)
    func anAnnouncedPaymentFromTheOldDeviceIsARestoreConflict(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, oldDevice) = try await h.user("alice", funds: 4_000, purchase: 4_000)
        let (bob, bobWallet) = try await h.user("bob")
        let backup = try oldDevice.exportBackup(passphrase: "correct horse battery", cost: .testing)
        let clock = h.clock
        let restored = try Wallet.restore(
            backup, passphrase: "correct horse battery", into: h.scratch.path("restored-" + UUID().uuidString),
            keyCost: .testing, environment: WalletEnvironment(now: { clock.now }))
        try await h.registerKey(account: alice, signer: restored.identity.signer)
        _ = try await h.issuer.refresh(
            account: alice, walletKey: restored.publicKey, chains: try restored.restoredStates().map(\.chain.encoded),
            restore: true)

        let paid = try h.pay(1_500, from: oldDevice, to: bobWallet)
        let announced = try await h.issuer.announce(account: alice, chain: paid[0].encoded)
        guard case .conflict(let caseID, 0) = announced else {
            Issue.record("expected a conflict without credit, got \(announced)")
            return
        }
        #expect(try await !h.issuer.account(alice).frozen)
        #expect(try await h.issuer.fraudCases().map(\.status) == ["restore_conflict"])
        for _ in 0..<2 { _ = try await h.issuer.redeem(account: bob, chains: paid.map(\.encoded)) }
        #expect(try await h.balance(bob) == 1_500)
        #expect(try await h.balance(alice) == -1_500)
        #expect(try await h.issuer.fraudCases().map(\.id) == [caseID])
        #expect(try await !h.issuer.account(alice).frozen)
        try await h.expectBooksBalance()
    }

    /// Rule 5: a state the old device spent (and its payee redeemed) before the restore is
    /// retired by the exchange, with no fraud case against the honest owner.
    @Test(arguments: Backend.available)
    func aStateSpentBeforeTheExchangeIsRetiredWithoutAFraudCase(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, oldDevice) = try await h.user("alice", funds: 5_000, purchase: 5_000)
        let (bob, bobWallet) = try await h.user("bob")
        let backup = try oldDevice.exportBackup(passphrase: "correct horse battery", cost: .testing)
        let paid = try h.pay(5_000, from: oldDevice, to: bobWallet)
        _ = try await h.issuer.redeem(account: bob, chains: paid.map(\.encoded))
        let clock = h.clock
        let restored = try Wallet.restore(
            backup, passphrase: "correct horse battery", into: h.scratch.path("restored-" + UUID().uuidString),
            keyCost: .testing, environment: WalletEnvironment(now: { clock.now }))
        try await h.registerKey(account: alice, signer: restored.identity.signer)
        let (results, fresh) = try await h.issuer.refresh(
            account: alice, walletKey: restored.publicKey, chains: try restored.restoredStates().map(\.chain.encoded),
            restore: true)
        #expect(results.count == 1)
        if case .invalid(let code, _) = results[0] { #expect(code == "already_spent") } else { Issue.record("got \(results)") }
        #expect(fresh.isEmpty)
        #expect(try await h.issuer.fraudCases().isEmpty)
        #expect(try await !h.issuer.account(alice).frozen)
        try await h.expectBooksBalance()
    }

    /// Rule 5: conflicts from a second restore of the same account are fraud: frozen.
    @Test(arguments: Backend.available)
    func restoreConflictsFromASecondRestoreAreFraud(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, device1) = try await h.user("alice", funds: 20_000)
        try device1.deposit(
            try await h.issuer.purchase(
                account: alice, walletKey: device1.publicKey, amount: 4_000, idempotencyKey: "restore-test-a"))
        try device1.deposit(
            try await h.issuer.purchase(
                account: alice, walletKey: device1.publicKey, amount: 6_000, idempotencyKey: "restore-test-b"))
        let (bob, bobWallet) = try await h.user("bob")
        let backup = try device1.exportBackup(passphrase: "correct horse battery", cost: .testing)

        func restoreAndExchange(_ backup: [UInt8]) async throws -> Wallet {
            let clock = h.clock
            let w = try Wallet.restore(
                backup, passphrase: "correct horse battery", into: h.scratch.path("restored-" + UUID().uuidString),
                keyCost: .testing, environment: WalletEnvironment(now: { clock.now }))
            try await h.registerKey(account: alice, signer: w.identity.signer)
            let states = try w.restoredStates()
            let (results, fresh) = try await h.issuer.refresh(
                account: alice, walletKey: w.publicKey, chains: states.map(\.chain.encoded), restore: true)
            var outcomes: [StateRef: RestoreOutcome] = [:]
            for (state, result) in zip(states, results)
            where result.creditedAmount > 0 || result == .alreadyCredited(amount: state.amount) {
                outcomes[state.ref] = .exchanged
            }
            try w.applyRestoreExchange(outcomes, fresh: fresh)
            return w
        }
        // First restore: device 1 spends its 4,000 note after it → restore conflict, forgiven.
        let device2 = try await restoreAndExchange(backup)
        let first = try h.pay(4_000, from: device1, to: bobWallet)
        _ = try await h.issuer.redeem(account: bob, chains: first.map(\.encoded))
        #expect(try await !h.issuer.account(alice).frozen)
        // Second restore (of device 2's backup), and device 2 spends after it: a repeat.
        let backup2 = try device2.exportBackup(passphrase: "correct horse battery", cost: .testing)
        _ = try await restoreAndExchange(backup2)
        let second = try h.pay(device2.balance().spendable, from: device2, to: bobWallet)
        _ = try await h.issuer.redeem(account: bob, chains: second.map(\.encoded))
        #expect(try await h.issuer.account(alice).frozen)
        let statuses = try await h.issuer.fraudCases().map(\.status).sorted()
        #expect(statuses.contains("restore_conflict"))
        #expect(statuses.count == 2 && statuses != ["restore_conflict", "restore_conflict"])
        try await h.expectBooksBalance()
    }
}
