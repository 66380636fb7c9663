import Crypto
import Foundation
import IssuerCore
import IssuerTesting
import OfflineNotes
import SQLStore
import TestSupport
import Testing
import WalletCore
import WalletTestSupport

/// An issuer on a fresh database, plus helpers to make funded accounts with wallets.
struct IssuerHarness {
    static let start: Timestamp = 1_800_000_000
    let issuer: Issuer
    let clock: TestClock.Settable
    /// Where the test's wallets live; removed with them when the harness goes.
    let scratch: TemporaryDirectory
    let database: any SQLDatabase
    let openAnother: @Sendable () throws -> any SQLDatabase
    let eur = Currency("EUR")!

    init(_ backend: Backend, policy: DoubleSpendPolicy = .creditLaterReceiver) async throws {
        clock = TestClock(Self.start).settable
        scratch = try TemporaryDirectory("issuer-wallets")
        let (cleaning, openAnother) = try await backend.makeDatabase()
        self.openAnother = openAnother
        // The issuer holds the database that drops itself once the issuer is gone; tests see
        // the store inside (some read its counters).
        database = cleaning.base
        issuer = try await Self.issuer(on: cleaning, clock: clock.clock, policy: policy)
    }

    /// An issuer on `database`, which the test made (and cleans up) itself.
    init(database: any SQLDatabase) async throws {
        clock = TestClock(Self.start).settable
        scratch = try TemporaryDirectory("issuer-wallets")
        openAnother = { throw TestSupportError("this harness has no second process") }
        self.database = database
        issuer = try await Self.issuer(on: database, clock: clock.clock)
    }

    /// A second issuer instance with its own connection(s) to the same database.
    func secondProcess() async throws -> Issuer {
        try await Self.issuer(on: try openAnother(), clock: clock.clock)
    }

    static let authority = SoftwareSigner()
    static let issuingKey = SoftwareSigner()

    /// Another issuer process on the same database (same keys, its own connection pool).
    static func issuer(
        on db: any SQLDatabase, clock: TestClock, policy: DoubleSpendPolicy = .creditLaterReceiver
    ) async throws -> Issuer {
        let keyring = IssuerKeyring(
            authority: authority,
            issuing: [.init(signer: issuingKey, validFrom: start - 86_400, validUntil: start + 365 * 86_400)])
        var config = IssuerConfig(
            currency: Currency("EUR")!, maxOfflineHolding: 100_000, maxHops: 8, policy: policy, devFunding: true,
            passwordCost: .testing)
        config.noteLifetime = 30 * 86_400
        config.redemptionGrace = 14 * 86_400
        return try await Issuer.open(
            database: db, keyring: keyring, config: config, challengeSecret: Array(repeating: 7, count: 32),
            clock: { clock.now() })
    }

    /// Registers an account, registers a new wallet's key to it (with proof), funds it.
    func user(_ name: String, funds: UInt64 = 0, purchase: UInt64 = 0) async throws -> (account: Int64, wallet: Wallet) {
        let account = try await issuer.register(
            email: "\(name)-\(UUID().uuidString.prefix(6))@example.com", password: "correct horse battery")
        let dir = scratch.path("wallet-" + UUID().uuidString)
        let clock = self.clock
        let wallet = try Wallet.create(directory: dir, keyCost: .testing, environment: WalletEnvironment(now: { clock.now }))
        try wallet.installTrust(
            authority: issuer.keyring.authority.publicKey, keyset: issuer.keyset.encoded, limits: issuer.limits.encoded)
        try await issuer.registerKey(account: account, signer: wallet.identity.signer)
        if funds > 0 { _ = try await issuer.fund(account: account, amount: funds) }
        if purchase > 0 {
            try wallet.deposit(
                try await issuer.purchase(
                    account: account, walletKey: wallet.publicKey, amount: purchase, idempotencyKey: UUID().uuidString))
        }
        return (account, wallet)
    }

    func registerKey(account: Int64, signer: any MessageSigner) async throws {
        try await issuer.registerKey(account: account, signer: signer)
    }

    /// payee requests, payer pays, payee receives, payer confirms; returns the received chains.
    @discardableResult
    func pay(_ amount: UInt64, from payer: Wallet, to payee: Wallet) throws -> [Chain] {
        let request = try payee.createRequest(amount: amount)
        let sent = try payer.pay(request)
        let got = try payee.receive(sent.bundle, for: request.nonce)
        try payer.confirm(receipt: got.receipt.encoded)
        return try PaymentBundle(decoding: sent.bundle).chains
    }

    /// The double-spend scenario: Alice (10,000 bought) pays Bob 4,000 honestly, then a tampered
    /// phone signs the same note state again, outside the wallet, paying Carol 3,000. Returns
    /// both payees' chains; Carol's wallet has accepted hers offline (it cannot know).
    struct DoubleSpend {
        let aliceAccount: Int64, bob: Int64, carol: Int64
        let alice: Wallet
        let toBob: [UInt8], toCarol: [UInt8]
    }

    func doubleSpend() async throws -> DoubleSpend {
        let (aliceAccount, alice) = try await user("alice", funds: 10_000, purchase: 10_000)
        let (bob, bobWallet) = try await user("bob")
        let (carol, carolWallet) = try await user("carol")
        let note = try #require(try alice.states(.available).first?.chain)
        let toBob = try pay(4_000, from: alice, to: bobWallet)[0].encoded
        let (request, bundle) = try alice.signAgain(note, to: carolWallet, amount: 3_000, now: clock.now)
        _ = try carolWallet.receive(bundle, for: request.nonce)
        let toCarol = try PaymentBundle(decoding: bundle).chains[0]
        return DoubleSpend(
            aliceAccount: aliceAccount, bob: bob, carol: carol, alice: alice, toBob: toBob, toCarol: toCarol.encoded)
    }

    func balance(_ account: Int64) async throws -> Int64 { try await issuer.account(account).balance }

    func expectBooksBalance(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let problems = try await issuer.checkLedger()
        #expect(problems.isEmpty, "\(problems)", sourceLocation: sourceLocation)
    }
}
