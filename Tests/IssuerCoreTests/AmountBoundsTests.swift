import Foundation
import IssuerCore
import IssuerTesting
import OfflineNotes
import SQLStore
import TestSupport
import Testing
import WalletCore

/// DESIGN §2.1/§2.7: amounts at the edges — 0, 2^63 (one past the ceiling),
/// 2^64 − 1 — through the wallet (request, pay, receive), the verifier's bundle total, and the
/// issuer's value-moving calls. Each is refused with its own error, the wallet and the books
/// are exactly as before (full snapshots), and then the good path still works.
@Suite struct AmountBoundsTests {
    static let edges: [UInt64] = [0, 1 << 63, UInt64.max]

    /// The wallet's request and pay, and its receive of a bundle whose chains sum past 2^63 − 1.
    @Test(arguments: Backend.available)
    func theWalletRefusesAmountsOffTheScaleAndChangesNothing(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (_, alice) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (_, bob) = try await h.user("bob")
        let aliceBefore = try WalletSnapshot(alice)
        let bobBefore = try WalletSnapshot(bob)

        // A request above the ceiling cannot be made; 0 is the open amount.
        for amount in [UInt64(1) << 63, UInt64.max] {
            #expect(throws: WalletError.rejected(.amountOverflow), "request \(amount)") { try bob.createRequest(amount: amount) }
        }
        // Paying an open request needs 1 … 2^63 − 1; a fixed one, exactly its amount.
        let open = try bob.createRequest(amount: 0)
        for amount in Self.edges {
            #expect(throws: WalletError.invalidAmount("must be between 1 and 2^63 − 1 minor units"), "pay \(amount)") {
                try alice.pay(open, amount: amount)
            }
        }
        #expect(throws: WalletError.amountRequired) { try alice.pay(open) }
        let fixed = try bob.createRequest(amount: 1_000)
        for amount in Self.edges {
            guard case .invalidAmount = caught(WalletError.self, { try alice.pay(fixed, amount: amount) }) else {
                Issue.record("paying 1,000 with amount \(amount) was not refused as an invalid amount")
                continue
            }
        }
        // The largest request is valid, and more than Alice holds.
        let largest = try bob.createRequest(amount: Amount.max)
        #expect(throws: WalletError.insufficientFunds(available: 10_000, requested: Amount.max, currency: h.eur)) {
            try alice.pay(largest)
        }
        #expect(try WalletSnapshot(alice) == aliceBefore)

        // Two chains of 2^62 each, genuinely issued and signed over to Bob: each is in range,
        // their total (2^63) is not. The verifier's bundle total refuses it before any limit.
        let half: UInt64 = 1 << 62
        let overflowing = try (0..<2).map { _ in try h.mint(half, to: alice, paying: bob, nonce: open.nonce) }
        #expect(throws: WalletError.rejected(.amountOverflow)) {
            try bob.receive(try PaymentBundle(chains: overflowing).encoded, for: open.nonce)
        }
        // One past the ceiling in a single note, and 2^64 − 1: refused as overflow too.
        for amount in [UInt64(1) << 63, UInt64.max] {
            #expect(throws: WalletError.rejected(.amountOverflow), "note of \(amount)") {
                try bob.receive(
                    try PaymentBundle(chains: [try h.mint(amount, to: alice, paying: bob, nonce: open.nonce)]).encoded,
                    for: open.nonce)
            }
        }
        // A zero-value note is refused as zero, not as anything else.
        #expect(throws: WalletError.rejected(.zeroAmount)) {
            try bob.receive(
                try PaymentBundle(chains: [try h.mint(0, to: alice, paying: bob, nonce: open.nonce)]).encoded, for: open.nonce)
        }
        // The wallet's own deposit of notes off the scale (a hostile or broken issuer answer).
        #expect(throws: WalletError.rejected(.amountOverflow)) {
            try alice.deposit([Chain(note: try h.note(1 << 63, owner: alice.publicKey))])
        }
        #expect(try WalletSnapshot(bob) == bobBefore)
        #expect(try WalletSnapshot(alice) == aliceBefore)

        // The good path: the same open request is still payable.
        let sent = try alice.pay(open, amount: 1_234)
        let got = try bob.receive(sent.bundle, for: open.nonce)
        #expect(got.amount == 1_234)
        try alice.confirm(receipt: got.receipt.encoded)
        #expect(try alice.balance().spendable == 10_000 - 1_234)
        #expect(try bob.balance().unsettled == 1_234)
    }

    /// The issuer's purchase, funding, online transfer, redeem, refresh and announce.
    @Test(arguments: Backend.available)
    func theIssuerRefusesAmountsOffTheScaleAndTheBooksDoNotMove(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, aliceWallet) = try await h.user("alice", funds: 10_000, purchase: 2_000)
        let (bob, bobWallet) = try await h.user("bob", funds: 1)
        let bobEmail = try await h.issuer.account(bob).email
        let books = try await BooksSnapshot(h.database)

        for amount in Self.edges {
            let purchase = await issuerError {
                try await h.issuer.purchase(
                    account: alice, walletKey: aliceWallet.publicKey, amount: amount, idempotencyKey: "purchase-at-edge-\(amount)"
                )
            }
            #expect(purchase?.isAmountRefusal == true, "purchase \(amount): \(String(describing: purchase))")
            let fund = await issuerError { try await h.issuer.fund(account: alice, amount: amount) }
            #expect(fund?.isAmountRefusal == true, "fund \(amount): \(String(describing: fund))")
            let send = await issuerError {
                try await h.issuer.send(from: alice, toEmail: bobEmail, amount: amount, idempotencyKey: "send-at-edge-\(amount)")
            }
            #expect(send?.isAmountRefusal == true, "send \(amount): \(String(describing: send))")
        }
        // Chains carrying amounts off the scale, signed by the issuer's real key so that only
        // the amount is wrong: redeem and refresh refuse them per chain, announce refuses it.
        let cases: [(amount: UInt64, code: String)] = [
            (0, "zero_amount"), (1 << 63, "amount_overflow"), (UInt64.max, "amount_overflow"),
        ]
        for (amount, code) in cases {
            let chain = try h.mint(
                amount, to: aliceWallet, paying: bobWallet, nonce: Nonce(uncheckedBytes: Array(repeating: 1, count: 16))
            ).encoded
            #expect(try await h.issuer.redeem(account: bob, chains: [chain]).map(\.code) == [code], "redeem \(amount)")
            let refreshed = try await h.issuer.refresh(account: bob, walletKey: bobWallet.publicKey, chains: [chain])
            #expect(refreshed.results.map(\.code) == [code] && refreshed.notes.isEmpty, "refresh \(amount)")
            #expect(
                await issuerError { try await h.issuer.announce(account: alice, chain: chain) }?.code == code,
                "announce \(amount)")
        }
        // A transfer whose two in-range outputs sum past the ceiling (value "conserved" modulo 2^64).
        let wrapped = try h.note(Amount.max, owner: aliceWallet.publicKey)
        let wrap = try Transfer.sign(
            input: Chain(note: wrapped).heldRef,
            outputs: [
                TransferOutput(owner: bobWallet.publicKey, amount: Amount.max),
                TransferOutput(owner: aliceWallet.publicKey, amount: Amount.max),
            ],
            nonce: Nonce(uncheckedBytes: Array(repeating: 2, count: 16)), createdAt: h.clock.now,
            signer: aliceWallet.identity.signer)
        #expect(
            try await h.issuer.redeem(account: bob, chains: [Chain(note: wrapped).appending(wrap, holding: 0).encoded]).map(
                \.code) == ["amount_overflow"])
        #expect(try await BooksSnapshot(h.database) == books)

        // The good path still works: fund, send, purchase, and a real redemption.
        _ = try await h.issuer.fund(account: alice, amount: 500)
        _ = try await h.issuer.send(from: alice, toEmail: bobEmail, amount: 300, idempotencyKey: "send-good")
        try aliceWallet.deposit(
            try await h.issuer.purchase(
                account: alice, walletKey: aliceWallet.publicKey, amount: 1_000, idempotencyKey: "buy-good"))
        let paid = try h.pay(700, from: aliceWallet, to: bobWallet)
        #expect(try await h.issuer.redeem(account: bob, chains: paid.map(\.encoded)) == [.credited(amount: 700)])
        #expect(try await h.balance(alice) == 10_000 - 2_000 + 500 - 300 - 1_000)
        #expect(try await h.balance(bob) == 1 + 300 + 700)
        try await h.expectBooksBalance()
    }
}

extension IssuerError {
    /// Refused for its amount (not, say, for a malformed idempotency key).
    var isAmountRefusal: Bool {
        if case .invalidField("amount", _) = self { true } else { false }
    }
}

extension RedeemResult {
    /// The refusal code, or the kind of success (for compact comparisons).
    var code: String {
        switch self {
        case .credited: "credited"
        case .alreadyCredited: "already_credited"
        case .conflict: "conflict"
        case .invalid(let code, _): code
        }
    }
}

extension IssuerHarness {
    /// An issued note signed by the harness's real issuing key, of any amount (the issuer's
    /// `purchase` would refuse the amounts these tests need), never recorded by the issuer.
    func note(_ amount: UInt64, owner: PublicKeyBytes) throws -> IssuedNote {
        try IssuedNote.issue(
            noteID: NoteID(uncheckedBytes: (0..<16).map { _ in UInt8.random(in: 0...255) }), currency: eur, amount: amount,
            owner: owner,
            issuedAt: clock.now, expiresAt: clock.now + 86_400, issuer: Self.issuingKey)
    }

    /// Such a note, owned by `from`, signed over whole to `to` for the request `nonce`.
    func mint(_ amount: UInt64, to from: Wallet, paying to: Wallet, nonce: Nonce) throws -> Chain {
        let chain = Chain(note: try note(amount, owner: from.publicKey))
        let transfer = try Transfer.sign(
            input: chain.heldRef, outputs: [TransferOutput(owner: to.publicKey, amount: amount)], nonce: nonce,
            createdAt: clock.now,
            signer: from.identity.signer)
        return chain.appending(transfer, holding: 0)
    }
}

/// Everything a wallet holds or remembers, for "bad input changes no state".
struct WalletSnapshot: Equatable {
    var balance: Balance
    var states: [StoredState]
    var pending: [OutgoingPayment]
    var history: [HistoryEntry]
    var proofs: [FraudProof]

    init(_ wallet: Wallet) throws {
        balance = try wallet.balance()
        states = try wallet.states()
        pending = try wallet.pendingPayments()
        history = try wallet.history()
        proofs = try wallet.fraudProofs()
    }
}

/// Every balance, entry, note, spend, case and idempotency record of the issuer's books.
struct BooksSnapshot: Equatable {
    var rows: [String]

    init(_ database: any SQLDatabase) async throws {
        rows = try await database.transaction { conn in
            var rows: [String] = []
            for row in try await conn.query("SELECT id, balance, frozen FROM account ORDER BY id") {
                rows.append("account \(try row.int("id")) \(try row.int("balance")) frozen \(try row.int("frozen"))")
            }
            for table in ["journal", "issued_note", "spent_state", "fraud_case", "idempotency"] {
                rows.append("\(table) \(try await conn.queryOne("SELECT COUNT(*) AS n FROM \(table)")?.int("n") ?? -1)")
            }
            rows.append(
                "unredeemed \(try await conn.queryOne("SELECT CAST(COALESCE(SUM(amount - redeemed), 0) AS BIGINT) AS v FROM issued_note")?.int("v") ?? -1)"
            )
            return rows
        }
    }
}
