import Foundation
import IssuerTesting
import SQLStore
import TestSupport
import Testing

@testable import IssuerCore

/// One address is one account; no address hides characters, and no account
/// looks like another.
@Suite struct EmailAddressTests {
    static let password = "long enough password"

    /// A NUL is refused, never cut short where SQLite binds it (`nul\0@x` as `nul`).
    @Test(arguments: Backend.available)
    func aNULIsRefusedAndNeverTruncates(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        #expect(
            await issuerError { try await h.issuer.register(email: "nul\0@x.test", password: Self.password) }?.code
                == "invalid_field")
        let a = try await h.issuer.register(email: "a@x.test", password: Self.password)
        #expect(
            await issuerError { try await h.issuer.login(email: "a@x.test\0zzz", password: Self.password) } == .badCredentials)
        #expect(try await h.issuer.login(email: "a@x.test", password: Self.password).id == a)
        #expect(
            await issuerError {
                try await h.issuer.send(from: a, toEmail: "a@x.test\0", amount: 1, idempotencyKey: "send-nul-1")
            }?.code == "invalid_field")
    }

    @Test(arguments: [
        "@", "a@", "@x.test", "a@@x.test", "a@b@x.test", "", " ", "a", "a@x.test\n", "a\n@x.test", "a\t@x.test", "a b@x.test",
        "a@x..test", "a@.x.test", "a@x.test.", ".a@x.test", "a.@x.test", "a..b@x.test", "a@-x.test", "a@x-.test",
        "\"a b\"@x.test",
        "a\u{200B}@x.test", "a@x\u{200D}.test", "\u{FEFF}a@x.test", "a\u{202E}@x.test", "a\u{7F}@x.test", "a\u{85}@x.test",
        "a\u{2028}@x.test", "a\u{00A0}@x.test", "a\u{E000}@x.test", "system:float",
        String(repeating: "a", count: 65) + "@x.test", "a@" + String(repeating: "b", count: 64) + ".test",
        "a@" + Array(repeating: String(repeating: "b", count: 60), count: 5).joined(separator: "."),
    ])
    func invalidAddressesAreRefused(_ input: String) {
        #expect(throws: IssuerError.self, "\(input.unicodeScalars.map { String($0.value, radix: 16) })") {
            try EmailAddress(input)
        }
    }

    @Test func validAddressesAreNormalized() throws {
        #expect(try EmailAddress(" Ann@Example.COM ").normalized == "ann@example.com")
        #expect(try EmailAddress("o'brien+tag@mail.example.co.uk").normalized == "o'brien+tag@mail.example.co.uk")
        #expect(try EmailAddress("dev@localhost").normalized == "dev@localhost")
        // NFD (e + combining acute) and NFC (é) are one address.
        #expect(try EmailAddress("jose\u{0301}@example.com").normalized == "jos\u{E9}@example.com")
        #expect(try EmailAddress("JOS\u{C9}@EXAMPLE.COM").normalized == "jos\u{E9}@example.com")
        #expect(try EmailAddress("用户@例子.广告").normalized == "用户@例子.广告")
        // Full-width letters are allowed, but look like (have the skeleton of) ASCII ones.
        #expect(try EmailAddress("\u{FF41}lice@example.com").skeleton == "alice@example.com")
        // Cyrillic а, е, о look like Latin a, e, o.
        #expect(try EmailAddress("\u{0430}lic\u{0435}@examp\u{04CF}\u{0435}.com").skeleton == "alice@example.com")
        #expect(try EmailAddress("alice@example.com").skeleton == "alice@example.com")
    }

    /// Look-alikes of an account are refused, not made separate accounts `send-online` could pay.
    @Test(arguments: Backend.available)
    func lookAlikesOfAnAccountAreRefused(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let alice = try await h.issuer.register(email: "alice@example.com", password: Self.password)
        #expect(
            await issuerError { try await h.issuer.register(email: "ALICE@example.com", password: Self.password) } == .emailTaken)
        for lookAlike in [
            "\u{FF41}lice@example.com",  // full-width a
            "\u{FF21}\u{FF2C}\u{FF29}\u{FF23}\u{FF25}@\u{FF45}xample.com",  // full-width ALICE
            "\u{0430}lice@example.com",  // Cyrillic a
            "alice@\u{0435}xample.com",  // Cyrillic e
        ] {
            let error = await issuerError { try await h.issuer.register(email: lookAlike, password: Self.password) }
            #expect(error == .emailLookAlike, "\(lookAlike)")
            #expect(error?.code == "email_taken")
        }
        // NFC and NFD spellings are one account.
        let jose = try await h.issuer.register(email: "jos\u{E9}@example.com", password: Self.password)
        #expect(
            await issuerError { try await h.issuer.register(email: "jose\u{0301}@example.com", password: Self.password) }
                == .emailTaken)
        #expect(try await h.issuer.login(email: "jose\u{0301}@example.com", password: Self.password).id == jose)
        #expect(
            await issuerError { try await h.issuer.register(email: "alice\u{200B}@example.com", password: Self.password) }?.code
                == "invalid_field")
        // A look-alike is not an account: logging in or paying it reaches no one.
        #expect(
            await issuerError { try await h.issuer.login(email: "\u{FF41}lice@example.com", password: Self.password) }
                == .badCredentials)
        _ = try await h.issuer.fund(account: jose, amount: 100)
        let sent = await issuerError {
            try await h.issuer.send(from: jose, toEmail: "\u{0430}lice@example.com", amount: 10, idempotencyKey: "send-look-1")
        }
        #expect(sent?.code == "invalid_field")
        _ = try await h.issuer.send(from: jose, toEmail: " ALICE@Example.com", amount: 10, idempotencyKey: "send-look-2")
        #expect(try await h.balance(alice) == 10)
        // The first of two look-alikes may be anything valid; the plain one is then refused.
        _ = try await h.issuer.register(email: "\u{FF42}ob@example.com", password: Self.password)
        #expect(
            await issuerError { try await h.issuer.register(email: "bob@example.com", password: Self.password) }
                == .emailLookAlike)
    }

    /// The NUL was cut where text was bound: every TEXT now goes in and comes out whole.
    @Test func sqliteStoresTextWithANULWhole() async throws {
        let h = try await IssuerHarness(.sqlite)
        let rows = try await h.database.transaction { conn in
            try await conn.execute("CREATE TABLE t (v TEXT)")
            try await conn.execute("INSERT INTO t VALUES (?)", "nul\0@x")
            return try await conn.query(
                "SELECT v, length(CAST(v AS BLOB)) AS n, (SELECT COUNT(*) FROM t WHERE v = ?) AS truncated FROM t", "nul")
        }
        #expect(try rows.first?.text("v") == "nul\0@x")
        #expect(try rows.first?.int("n") == 6)
        #expect(try rows.first?.int("truncated") == 0)
    }

    /// Databases from before version 3 get skeletons; old look-alikes keep logging in, and
    /// the money rules apply to them from then on.
    @Test(arguments: Backend.available)
    func aVersion2DatabaseMigrates(_ backend: Backend) async throws {
        let (database, _) = try await backend.makeDatabase()
        let hash = try PasswordHasher(cost: .testing).hash(Self.password, salt: Array(repeating: 1, count: 16))
        // As an old server left it: schema version 2 and a look-alike pair of addresses.
        try await database.transaction { conn in
            try await conn.execute(
                "CREATE TABLE schema_migration (version \(conn.dialect == .sqlite ? "INTEGER" : "BIGINT") PRIMARY KEY, applied_at \(conn.dialect == .sqlite ? "INTEGER" : "BIGINT") NOT NULL)"
            )
            for statement in Schema.ddl(conn.dialect) + Schema.ddlV2(conn.dialect) { try await conn.execute(statement) }
            for email in ["system:funding", "system:float"] {
                try await conn.execute("INSERT INTO account(email, role, created_at) VALUES (?, 'system', 0)", email)
            }
            for email in ["carol@example.com", "c\u{FF41}rol@example.com"] {
                try await conn.execute(
                    "INSERT INTO account(email, password_hash, role, created_at) VALUES (?, ?, 'user', 0)", email, hash)
            }
            try await conn.execute("INSERT INTO schema_migration(version, applied_at) VALUES (1, 0), (2, 0)")
        }
        let issuer = try await IssuerHarness.issuer(on: database, clock: TestClock(IssuerHarness.start))
        let carol = try await issuer.login(email: "carol@example.com", password: Self.password)
        let twin = try await issuer.login(email: "c\u{FF41}rol@example.com", password: Self.password)
        #expect(carol.id != twin.id)
        #expect(
            await issuerError { try await issuer.register(email: "CAROL@example.com", password: Self.password) } == .emailTaken)
        #expect(
            await issuerError { try await issuer.register(email: "c\u{0430}rol@example.com", password: Self.password) }
                == .emailLookAlike)
        let refused: Bool
        do {
            try await database.transaction {
                try await $0.execute(
                    "UPDATE account SET balance = balance + 9223372036854775807 + 1 WHERE email = 'carol@example.com'")
            }
            refused = false
        } catch {
            refused = true
        }
        #expect(refused)
    }
}
