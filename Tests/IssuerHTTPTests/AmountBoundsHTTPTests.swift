import Foundation
import IssuerCore
import OfflineNotes
import OpenAPIRuntime
import SQLStore
import Testing
import WalletAPI
import WalletCore
import WalletSync

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// DESIGN §2.1/§2.7 over the wire: amounts written into raw JSON bodies
/// (zero, negatives, one past Int64, 2^64 − 1, fractions, exponents, strings) for every call
/// that moves money by amount, and the wallet's client asked for amounts the API cannot carry.
/// Decision: an exponent or fraction that denotes an integer in range (5e2, 100.0) is that
/// integer, exactly — JSON numbers have no other meaning, and the decoder never rounds them.
/// Each is refused with a specific error, the books are exactly as before, and then the good
/// path works.
@Suite struct AmountBoundsHTTPTests {
    /// The raw JSON text of `amount`, and the code the server must answer it with.
    static let raw: [(json: String, code: String)] = [
        ("0", "invalid_field"), ("-0.0", "invalid_field"), ("-1", "invalid_field"), ("-9223372036854775808", "invalid_field"),
        ("9223372036854775808", "invalid_request"), ("9.223372036854775808e18", "invalid_request"),
        ("18446744073709551615", "invalid_request"), ("1.5", "invalid_request"), ("1e-2", "invalid_request"),
        ("1e400", "invalid_request"), (#""100""#, "invalid_request"), ("null", "invalid_request"), ("true", "invalid_request"),
    ]

    @Test(arguments: HTTPBackend.available)
    func rawAmountsOffTheScaleAreRefusedAndTheBooksDoNotMove(_ backend: HTTPBackend) async throws {
        try await HTTPHarness.with(backend) { h in
            let (alice, aliceTokens, _) = try await h.user("alice")
            let (bob, _, bobEmail) = try await h.user("bob")
            let config = try await alice.getConfig().ok.body.json
            let wallet = try await h.wallet(for: alice, trusting: config)
            _ = try await alice.fundAccount(body: .json(.init(amount: 10_000))).ok
            let key = Base64URL.encode(wallet.publicKey.bytes)
            let books = try await booksRows(h.issuer.database)

            for (n, (json, code)) in Self.raw.enumerated() {
                let calls: [(path: String, body: String, idempotent: Bool)] = [
                    ("v1/account/fund", #"{"amount":\#(json)}"#, false),
                    ("v1/notes/purchase", #"{"walletKey":"\#(key)","amount":\#(json)}"#, true),
                    ("v1/transfers", #"{"to":"\#(bobEmail)","amount":\#(json)}"#, true),
                ]
                for call in calls {
                    let answer = try await post(
                        h.baseURL.appendingPathComponent(call.path), token: aliceTokens.accessToken, body: call.body,
                        idempotencyKey: call.idempotent ? "bounds-\(n)-\(call.path.count)" : nil)
                    #expect(answer.status == 400, "\(call.path) amount \(json): \(answer.status) \(answer.json)")
                    #expect(answer.json["code"] as? String == code, "\(call.path) amount \(json): \(answer.json)")
                    if code == "invalid_field" {
                        #expect(answer.json["field"] as? String == "amount", "\(call.path) amount \(json): \(answer.json)")
                    }
                }
            }
            #expect(try await booksRows(h.issuer.database) == books)

            // The good path, with the same raw bodies and amounts in range. A JSON number is its
            // value however it is written: 5e2 is exactly 500 and 9.223e3 exactly 9223 (the
            // decoder reads them exactly, never through a Double), so they are taken, not refused.
            for (path, body) in [
                ("v1/account/fund", #"{"amount":5e2}"#), ("v1/notes/purchase", #"{"walletKey":"\#(key)","amount":9.223e3}"#),
                ("v1/transfers", #"{"to":"\#(bobEmail)","amount":77}"#),
            ] {
                let answer = try await post(
                    h.baseURL.appendingPathComponent(path), token: aliceTokens.accessToken, body: body,
                    idempotencyKey: "good-path-\(path.count)")
                #expect(answer.status == 200, "\(path): \(answer.json)")
            }
            #expect(try await alice.getAccount().ok.body.json.balance == 10_000 + 500 - 9_223 - 77)
            #expect(try await bob.getAccount().ok.body.json.balance == 77)
            #expect(try await h.issuer.checkLedger().isEmpty)
        }
    }

    /// The wallet's client carries amounts as int64: one it cannot carry is refused before any
    /// request goes out (never a trap converting it), and the issuer's books do not move.
    @Test func theClientRefusesAmountsTheAPICannotCarry() async throws {
        try await HTTPHarness.with(.sqlite) { h in
            let (alice, aliceTokens, _) = try await h.user("alice")
            let (_, _, bobEmail) = try await h.user("bob")
            let wallet = try await h.wallet(for: alice, trusting: try await alice.getConfig().ok.body.json)
            let client = IssuerClient(serverURL: h.baseURL)
            client.useAccessToken(aliceTokens.accessToken)
            try await client.fund(10_000)
            let books = try await booksRows(h.issuer.database)
            let before = try wallet.balance()
            for amount in [UInt64(1) << 63, UInt64.max] {
                for (what, call) in [
                    ("purchase", { _ = try await client.purchase(amount, into: wallet) }),
                    ("fund", { try await client.fund(amount) }),
                    ("send", { _ = try await client.sendOnline(to: bobEmail, amount: amount) }),
                ] as [(String, () async throws -> Void)] {
                    let error = await #expect(throws: IssuerClientError.self, "\(what) \(amount)") { try await call() }
                    #expect(error?.code == "invalid_amount", "\(what) \(amount): \(String(describing: error))")
                }
            }
            #expect(try await booksRows(h.issuer.database) == books)
            #expect(try wallet.balance() == before)
            #expect(try await client.purchase(2_500, into: wallet) == 2_500)
            #expect(try await client.account().balance == 7_500)
        }
    }

    /// POSTs raw JSON text (the typed client cannot write these bodies).
    func post(_ url: URL, token: String, body: String, idempotencyKey: String?) async throws -> (status: Int, json: [String: Any])
    {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let idempotencyKey { request.setValue(idempotencyKey, forHTTPHeaderField: "Idempotency-Key") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    /// The books as rows: every account's balance and freeze, and how many entries, notes,
    /// spends and idempotency records exist.
    func booksRows(_ database: any SQLDatabase) async throws -> [String] {
        try await database.transaction { conn in
            try await conn.query("SELECT id, balance, frozen FROM account ORDER BY id").map { row in
                "\(try row.int("id")): \(try row.int("balance")) \(try row.int("frozen"))"
            }
                + conn.query(
                    """
                    SELECT (SELECT COUNT(*) FROM journal) AS j, (SELECT COUNT(*) FROM issued_note) AS n,
                           (SELECT COUNT(*) FROM spent_state) AS s, (SELECT COUNT(*) FROM idempotency) AS i
                    """
                ).map { row in
                    "journal \(try row.int("j")) notes \(try row.int("n")) spent \(try row.int("s")) idempotency \(try row.int("i"))"
                }
        }
    }
}
