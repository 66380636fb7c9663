import CrashPoints
import Crypto
import Foundation
import OfflineNotes
import SQLStore
import Synchronization

/// The Offline Token Manager: accounts, the ledger, notes in and out, double-spend detection.
/// Transport-free: the HTTP layer authenticates and calls these methods. Every value-moving
/// operation is one database transaction (on PostgreSQL a clean redemption batch is one
/// statement, a transaction of its own); correctness comes from constraints inside it, so
/// several processes may share one PostgreSQL database.
public final class Issuer: Sendable {
    public let database: any SQLDatabase
    public let config: IssuerConfig
    public let keyring: IssuerKeyring
    public let keyset: Keyset
    public let limits: Limits
    let verifier: NoteVerifier
    let clock: @Sendable () -> Timestamp
    let challengeSecret: SendableKey<SymmetricKey>
    let redemptions: RedemptionQueue
    let settlement: any SettlementAdapter
    let rateLimiter = RateLimiter()
    /// Ids of the system ledger accounts, read once (they never change after migration).
    let systemAccounts = Mutex<[SystemAccount: Int64]>([:])
    /// Where this process's redemption slots start among the float's balance shards: random,
    /// so several server processes on one database mostly write different shards.
    let shardOffset = Int.random(in: 0..<Ledger.shardCount)
    /// How the redemption batches of this process were written (tests read it).
    let redemptionBatches = RedemptionBatchCounts()

    /// Opens the issuer on `database`, applying migrations.
    /// - Parameter challengeSecret: keys the stateless key-registration challenges; share it
    ///   between processes serving one database.
    public static func open(
        database: any SQLDatabase, keyring: IssuerKeyring, config: IssuerConfig, challengeSecret: [UInt8],
        settlement: any SettlementAdapter = BuiltInSettlement(),
        clock: @escaping @Sendable () -> Timestamp = { Timestamp(Date().timeIntervalSince1970) }
    ) async throws -> Issuer {
        try await Schema.migrate(database, now: Int64(clock()))
        return try Issuer(
            database: database, keyring: keyring, config: config, challengeSecret: challengeSecret, settlement: settlement,
            clock: clock)
    }

    init(
        database: any SQLDatabase, keyring: IssuerKeyring, config: IssuerConfig, challengeSecret: [UInt8],
        settlement: any SettlementAdapter, clock: @escaping @Sendable () -> Timestamp
    ) throws {
        self.database = database
        self.settlement = settlement
        self.config = config
        self.keyring = keyring
        self.clock = clock
        self.challengeSecret = SendableKey(SymmetricKey(data: challengeSecret))
        let now = clock()
        keyset = try Keyset.sign(
            sequence: keyring.sequence, issuedAt: now,
            keys: keyring.issuing.map {
                IssuerKey(publicKey: $0.signer.publicKey, validFrom: $0.validFrom, validUntil: $0.validUntil)
            },
            authority: keyring.authority)
        limits = try Limits.sign(
            currency: config.currency, maxOfflineHolding: config.maxOfflineHolding, maxHops: config.maxHops,
            noteLifetime: config.noteLifetime, redemptionGrace: config.redemptionGrace, issuedAt: now,
            authority: keyring.authority)
        verifier = NoteVerifier(keyset: keyset, limits: limits)
        redemptions = RedemptionQueue(
            maxBatch: 128,
            parallelism: max(1, config.redemptionParallelism ?? Self.defaultRedemptionParallelism(database.dialect)))
    }

    /// `IssuerConfig.redemptionParallelism`'s default.
    static func defaultRedemptionParallelism(
        _ dialect: SQLDialect, cores: Int = ProcessInfo.processInfo.activeProcessorCount
    ) -> Int {
        dialect == .sqlite || cores < 4 ? 1 : 2
    }

    var now: Int64 { Int64(clamping: clock()) }

    /// A system ledger account's id, cached after the first read.
    func systemAccount(_ conn: any SQLConnection, _ account: SystemAccount) async throws -> Int64 {
        if let id = systemAccounts.withLock({ $0[account] }) { return id }
        let id = try await Ledger.systemAccount(conn, account)
        systemAccounts.withLock { $0[account] = id }
        return id
    }

    /// `count` random bytes, eight per call to the system generator (a `getrandom` each).
    func random(_ count: Int) -> [UInt8] {
        var g = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count { withUnsafeBytes(of: g.next()) { bytes += $0 } }
        return Array(bytes.prefix(count))
    }

    /// Runs a transaction, mapping low-level failures to `IssuerError.storage`.
    func transaction<T: Sendable>(
        durable: Bool = true, _ body: (any SQLConnection) async throws -> T
    ) async throws(IssuerError) -> T {
        do {
            return try await database.transaction(durable: durable, body)
        } catch let error as IssuerError {
            throw error
        } catch let shortfall as Ledger.Shortfall {
            throw .insufficientFunds(balance: shortfall.balance, requested: shortfall.requested, currency: config.currency)
        } catch {
            throw .storage(String(describing: error))
        }
    }

    // MARK: Accounts

    /// Makes the existing user account at `email` an admin (its password stays). Returns its
    /// id, and whether it was an admin already. A system account, or no account at that exact
    /// address, is `accountNotFound`.
    public func promoteToAdmin(email: String) async throws(IssuerError) -> (id: Int64, wasAdmin: Bool) {
        let address = try EmailAddress(email)
        return try await transaction { conn in
            guard
                let row = try await conn.queryOne(
                    "SELECT id, role FROM account WHERE email = ? AND role <> 'system'", address.normalized)
            else {
                throw IssuerError.accountNotFound
            }
            let id = try row.int("id")
            guard try row.text("role") != "admin" else { return (id, true) }
            try await conn.execute("UPDATE account SET role = 'admin' WHERE id = ?", id)
            try await audit(conn, actor: id, "promote", "admin \(address)")
            return (id, false)
        }
    }

    /// Creates a user account. Passwords are hashed with scrypt. The address is checked and
    /// normalized (`EmailAddress`); one that looks like an existing account's is refused.
    public func register(email: String, password: String, role: String = "user") async throws(IssuerError) -> Int64 {
        let address = try EmailAddress(email)
        guard password.count >= 10, password.utf8.count <= 1024 else {
            throw .invalidField(field: "password", reason: "must be 10 to 1024 characters")
        }
        guard ["user", "admin"].contains(role) else { throw .invalidField(field: "role", reason: "user or admin") }
        let hash: [UInt8]
        do { hash = try PasswordHasher(cost: config.passwordCost).hash(password, salt: random(16)) } catch {
            throw .storage("password hashing failed")
        }
        let now = self.now
        return try await transaction { conn in
            // Either unique key (the address, its look-alike skeleton) makes this a no-op.
            let rows = try await conn.query(
                "INSERT INTO account(email, email_skeleton, password_hash, role, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id",
                address.normalized, address.skeleton, hash, role, now)
            guard let id = try rows.first?.int("id") else {
                let same = try await conn.queryOne("SELECT id FROM account WHERE email = ?", address.normalized)
                throw same == nil ? IssuerError.emailLookAlike : IssuerError.emailTaken
            }
            try await audit(conn, actor: id, "register", "\(role) \(address)")
            return id
        }
    }

    /// The account id for valid credentials.
    public func login(email: String, password: String) async throws(IssuerError) -> Account {
        // No account has an invalid address: it gets the same answer as a wrong password.
        guard let address = try? EmailAddress(email) else { throw .badCredentials }
        let row = try await transaction { conn in
            try await conn.queryOne(
                "SELECT id, password_hash FROM account WHERE email = ? AND role <> 'system'", address.normalized)
        }
        guard let row, let hash = try? row.blob("password_hash"),
            PasswordHasher(cost: config.passwordCost).verify(password, against: hash), let id = try? row.int("id")
        else { throw .badCredentials }
        return try await account(id)
    }

    public func account(_ id: Int64) async throws(IssuerError) -> Account {
        try await transaction { conn in try await Self.loadAccount(conn, id) }
    }

    static func loadAccount(_ conn: any SQLConnection, _ id: Int64) async throws -> Account {
        guard
            let row = try await conn.queryOne(
                "SELECT a.id AS id, a.email AS email, a.role AS role, a.frozen AS frozen, \(Ledger.balance(of: "a")) AS balance FROM account a WHERE a.id = ?",
                id)
        else {
            throw IssuerError.accountNotFound
        }
        let outstanding =
            try await conn.queryOne(
                "SELECT CAST(COALESCE(SUM(amount - redeemed), 0) AS BIGINT) AS v FROM issued_note WHERE account_id = ? AND swept = 0",
                id)?
            .int("v") ?? 0
        return Account(
            id: try row.int("id"), email: try row.text("email"), role: try row.text("role"),
            frozen: try row.int("frozen") != 0, balance: try row.int("balance"), outstandingNotes: outstanding,
            frozenByOperator: try row.int("frozen") == Account.frozenByOperatorMark)
    }

    /// The audit log, newest first (admin).
    public func auditLog(limit: Int = 100, before: Int64? = nil) async throws(IssuerError) -> [AuditEntry] {
        try await transaction { conn in
            let rows = try await conn.query(
                "SELECT id, actor_account, action, detail, created_at FROM audit_log WHERE id < ? ORDER BY id DESC LIMIT ?",
                before ?? Int64.max, max(1, min(limit, 1000)))
            return try rows.map {
                AuditEntry(
                    id: try $0.int("id"), actor: try $0.optionalInt("actor_account"), action: try $0.text("action"),
                    detail: try $0.text("detail"), createdAt: try $0.int("created_at"))
            }
        }
    }

    /// Adds money from outside through the development endpoint (`config.devFunding` only).
    public func fund(account id: Int64, amount: UInt64) async throws(IssuerError) -> Account {
        guard config.devFunding else { throw .fundingDisabled }
        return try await deposit(account: id, amount: amount, reference: "dev-funding")
    }

    /// Credits an external deposit, as confirmed by the settlement adapter.
    public func deposit(account id: Int64, amount requested: UInt64, reference: String) async throws(IssuerError) -> Account {
        guard requested > 0, requested <= Amount.max else { throw .invalidField(field: "amount", reason: "must be positive") }
        let amount: UInt64
        do { amount = try await settlement.confirmDeposit(account: id, amount: requested, reference: reference) } catch {
            throw .storage("settlement did not confirm the deposit: \(error)")
        }
        guard amount > 0, amount <= Amount.max else {
            throw .invalidField(field: "amount", reason: "settlement confirmed nothing")
        }
        let now = self.now
        let entry = random(16)
        return try await transaction { conn in
            let funding = try await self.systemAccount(conn, .funding)
            _ = try await Self.loadAccount(conn, id)
            try await Ledger.post(
                conn, kind: "funding", reference: Array(reference.utf8.prefix(128)),
                postings: [.init(account: funding, amount: -Int64(amount)), .init(account: id, amount: Int64(amount))],
                entry: entry, now: now)
            return try await Self.loadAccount(conn, id)
        }
    }

    // MARK: Wallet keys

    /// A stateless challenge for `registerWalletKey`, valid five minutes: time ‖ random ‖ tag.
    public func keyChallenge(account: Int64) -> [UInt8] {
        var w = ByteWriter()
        w.raw(withUnsafeBytes(of: UInt64(now).bigEndian, Array.init))
        w.raw(random(16))
        let tag = HMAC<SHA256>.authenticationCode(
            for: w.bytes + withUnsafeBytes(of: account.bigEndian, Array.init), using: challengeSecret.value)
        return w.bytes + Array(tag).prefix(16)
    }

    /// Registers a wallet's public key to an account. The wallet proves it holds the private
    /// key by signing `"offline-wallet/v1/register-key" ‖ 0x00 ‖ challenge ‖ account id (8 bytes, big-endian)`.
    public func registerWalletKey(
        account: Int64, key: PublicKeyBytes, challenge: [UInt8], signature: [UInt8]
    ) async throws(IssuerError) {
        guard challenge.count == 40 else { throw .badChallenge("wrong length") }
        let accountBytes = withUnsafeBytes(of: account.bigEndian, Array.init)
        let expected = HMAC<SHA256>.authenticationCode(
            for: Array(challenge.prefix(24)) + accountBytes, using: challengeSecret.value)
        guard Array(expected).prefix(16).elementsEqual(challenge.suffix(16)) else {
            throw .badChallenge("not issued to this account")
        }
        let issued = challenge.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard UInt64(now) >= issued, UInt64(now) - issued <= 300 else { throw .badChallenge("expired") }
        guard let publicKey = try? key.signingKey(), let sig = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            publicKey.isValidSignature(sig, for: KeyRegistration.message(challenge: challenge, account: account))
        else { throw .badChallenge("signature does not verify with the key") }
        let now = self.now
        try await transaction { conn in
            let rows = try await conn.query(
                "INSERT INTO wallet_key(public_key, key_id, account_id, registered_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING account_id",
                key.bytes, key.keyID.bytes, account, now)
            if rows.isEmpty {
                let owner = try await conn.queryOne("SELECT account_id FROM wallet_key WHERE public_key = ?", key.bytes)
                guard try owner?.int("account_id") == account else { throw IssuerError.walletKeyTaken }
            }
        }
    }

    static func keyOwner(_ conn: any SQLConnection, _ key: PublicKeyBytes) async throws -> Int64? {
        try await conn.queryOne("SELECT account_id FROM wallet_key WHERE public_key = ?", key.bytes)?.int("account_id")
    }

    // MARK: Admin and audit

    func audit(_ conn: any SQLConnection, actor: Int64?, _ action: String, _ detail: String) async throws {
        try await conn.execute(
            "INSERT INTO audit_log(actor_account, action, detail, created_at) VALUES (?, ?, ?, ?)", actor, action, detail, now)
    }

    /// Freezes or unfreezes an account on an operator's word, and writes the audit log: the one
    /// rule for the API and the operator console. The `reason` (3–500 characters, one line;
    /// `checkAdminReason`) goes into the log with the account's email. Only user accounts
    /// qualify (`accountNotFreezable` for admin and system accounts), so no operator can lock
    /// out another. The account is marked frozen by an operator (`Account.frozenByOperator`), so
    /// its holder is told so rather than that it double spent.
    public func setFrozen(_ frozen: Bool, account: Int64, by admin: Int64, reason: String) async throws(IssuerError) {
        let checked = try Self.adminReason(reason)
        try await transaction { conn in
            let target = try await Self.loadAccount(conn, account)
            try target.checkFreezable()
            try await conn.execute(
                "UPDATE account SET frozen = ? WHERE id = ?", frozen ? Account.frozenByOperatorMark : 0, account)
            try await audit(
                conn, actor: admin, frozen ? "freeze" : "unfreeze", "account \(account) (\(target.email)): \(checked)")
        }
    }

    /// Value of notes issued and not yet redeemed or refunded: the issuer's liability.
    public func outstandingFloat() async throws(IssuerError) -> Int64 {
        try await transaction { conn in
            try await conn.queryOne("SELECT \(Ledger.balance(of: .float)) AS balance")?.int("balance") ?? 0
        }
    }

    /// User accounts with a negative balance (cheaters debited after a double spend).
    public func accountsInDebt() async throws(IssuerError) -> [Account] {
        try await transaction { conn in
            var debtors: [Account] = []
            for row in try await conn.query("SELECT id FROM account WHERE balance < 0 AND role <> 'system' ORDER BY id") {
                debtors.append(try await Self.loadAccount(conn, try row.int("id")))
            }
            return debtors
        }
    }

    /// Checks the books: every entry balances, every cached balance (an account's row plus its
    /// shards) equals its journal sum, only system accounts have shards, and the float equals the unredeemed value of unswept notes. Returns the problems found.
    public func checkLedger() async throws(IssuerError) -> [String] {
        try await transaction { conn in
            var problems: [String] = []
            for row in try await conn.query(
                "SELECT entry, CAST(SUM(amount) AS BIGINT) AS total FROM journal GROUP BY entry HAVING SUM(amount) <> 0")
            {
                problems.append("entry \(Hex.encode(try row.blob("entry"))) sums to \(try row.int("total"))")
            }
            for row in try await conn.query(
                // One pass over the journal (a join and GROUP BY); a subquery per account would walk
                // each account's postings by index, minutes at 10^7 notes.
                "SELECT a.id AS id, \(Ledger.balance(of: "a")) AS balance, CAST(COALESCE(SUM(j.amount), 0) AS BIGINT) AS journal FROM account a LEFT JOIN journal j ON j.account_id = a.id GROUP BY a.id, a.balance"
            )
            where try row.int("balance") != row.int("journal") {
                problems.append(
                    "account \(try row.int("id")) balance \(try row.int("balance")) ≠ journal \(try row.int("journal"))")
            }
            for row in try await conn.query(
                "SELECT DISTINCT s.account_id AS id FROM balance_shard s JOIN account a ON a.id = s.account_id WHERE a.role <> 'system'"
            ) {
                problems.append("account \(try row.int("id")) is not a system account but has balance shards")
            }
            let float = try await conn.queryOne("SELECT \(Ledger.balance(of: .float)) AS balance")?.int("balance") ?? 0
            let notes =
                try await conn.queryOne(
                    "SELECT CAST(COALESCE(SUM(amount - redeemed), 0) AS BIGINT) AS v FROM issued_note WHERE swept = 0")?.int("v")
                ?? 0
            if float != notes { problems.append("float \(float) ≠ unredeemed notes \(notes)") }
            return problems
        }
    }
}

/// An account as the API shows it.
public struct Account: Sendable, Equatable, Codable {
    public let id: Int64
    public let email: String
    public let role: String
    public let frozen: Bool
    /// Settled balance in minor units; negative only after a double spend.
    public let balance: Int64
    /// Value of notes this account bought that are not yet redeemed or refunded.
    public let outstandingNotes: Int64
    /// Frozen by an operator rather than by the double-spend rule.
    public var frozenByOperator = false

    /// `account.frozen` holds 0 (not frozen), 1 (frozen by the double-spend rule) or this
    /// (frozen by an operator, `Issuer.setFrozen`); every reader that asks only whether an
    /// account is frozen compares with 0.
    static let frozenByOperatorMark: Int64 = 2

    /// The freeze rule, for the API and the console alike (`Issuer.setFrozen`): only user
    /// accounts are frozen or unfrozen by an operator, never an admin or system account.
    public func checkFreezable() throws(IssuerError) {
        guard role == "user" else { throw .accountNotFreezable(account: id, role: role) }
    }

    /// The refusal for a frozen account, naming who froze it; nil if it is not frozen.
    var frozenRefusal: IssuerError? {
        guard frozen else { return nil }
        return frozenByOperator ? .accountFrozenByOperator : .accountFrozen
    }
}

/// One line of the audit log.
public struct AuditEntry: Sendable, Equatable {
    public let id: Int64
    public let actor: Int64?
    public let action: String
    public let detail: String
    public let createdAt: Int64
}
