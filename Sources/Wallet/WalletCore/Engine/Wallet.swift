import Foundation
import GRDB
import OfflineNotes
import Synchronization

/// The wallet engine shared by every client: holds notes, pays and receives offline, keeps
/// history. One instance per wallet directory; safe to use from several tasks (every change is
/// one SQLite transaction, and SQLite serializes writers).
///
/// ## Example
///
/// Two wallets trusting one issuer, the payer holding notes it bought:
///
/// ```swift
/// let payer = try Wallet.create(directory: payerDirectory)
/// let payee = try Wallet.create(directory: payeeDirectory)
/// for wallet in [payer, payee] {
///     try wallet.installTrust(authority: authorityKey, keyset: keysetBytes, limits: limitsBytes)
/// }
/// try payer.deposit(purchasedChains)
///
/// let request = try payee.createRequest(amount: 1_250, payeeName: "Stall 4")
/// let payment = try payer.pay(request)                      // the same bytes if asked again
/// let received = try payee.receive(payment.bundle, for: request.nonce)
/// try payer.confirm(receipt: received.receipt.encoded)       // paid
/// print(try payer.balance().spendable, try payee.balance().unsettled)
/// ```
public final class Wallet: Sendable {
    public let identity: WalletIdentity
    public let databasePath: String
    let db: DatabasePool
    let env: WalletEnvironment
    /// The verifier for the installed keyset and limits, rebuilt only when they change:
    /// decoding a keyset decompresses every issuer key, and the owner-key cache should live.
    private let cachedVerifier = Mutex<(keyset: [UInt8], limits: [UInt8], verifier: NoteVerifier)?>(nil)

    public var publicKey: PublicKeyBytes { identity.publicKey }

    /// Files inside a wallet directory.
    public static let keyFileName = "wallet.key"
    public static let databaseFileName = "wallet.sqlite"
    /// Present in a wallet directory while a restore is writing it (see `restore`).
    static let restoringMarkerName = "restore-unfinished"

    init(identity: WalletIdentity, databasePath: String, environment: WalletEnvironment) throws(WalletError) {
        self.identity = identity
        self.databasePath = databasePath
        self.db = try WalletDatabase.open(path: databasePath)
        self.env = environment
        // Snapshot streams held on other instances of this file learn of this one's commits.
        WalletChangeHub.attach(db, path: databasePath)
    }

    /// Creates a new wallet (key and database) in `directory`, which is created if needed.
    ///
    /// - Parameters:
    ///   - directory: the wallet's directory; one that already holds a wallet is refused
    ///     (`walletExists`).
    ///   - passphrase: seals the key file; nil leaves it unsealed.
    ///   - keyCost: how hard the passphrase is stretched (`.interactive`; tests use `.testing`).
    ///   - keyStore: where the new key goes (the Secure Enclave or the Keychain on a phone).
    ///     Nil: a `FileKeyStore` at `directory/wallet.key`, sealed with `passphrase` at `keyCost`
    ///     when one is given. With a key store, `passphrase` and `keyCost` do not apply: the store
    ///     protects the key its own way.
    ///   - environment: the clock and randomness; `.live` except in tests.
    public static func create(
        directory: String, passphrase: String? = nil, keyCost: PassphraseBox.Cost = .interactive,
        keyStore: (any KeyStore)? = nil, environment: WalletEnvironment = .live
    ) throws(WalletError) -> Wallet {
        try makeDirectory(directory)
        let dbPath = (directory as NSString).appendingPathComponent(databaseFileName)
        guard !FileManager.default.fileExists(atPath: dbPath) else { throw .walletExists(directory) }
        let store = keyStore ?? fileKeyStore(in: directory, passphrase: passphrase, cost: keyCost)
        return try Wallet(identity: store.create(), databasePath: dbPath, environment: environment)
    }

    /// Opens the wallet in `directory`.
    ///
    /// - Parameters:
    ///   - directory: a directory `create` or `restore` made.
    ///   - passphrase: the key file's passphrase, when it is sealed.
    ///   - keyStore: the store the wallet's key was created in. Nil: the `FileKeyStore` at
    ///     `directory/wallet.key`, opened with `passphrase` when it is sealed. With a key store,
    ///     `passphrase` does not apply.
    ///   - environment: the clock and randomness; `.live` except in tests.
    public static func open(
        directory: String, passphrase: String? = nil, keyStore: (any KeyStore)? = nil,
        environment: WalletEnvironment = .live
    ) throws(WalletError) -> Wallet {
        let dbPath = (directory as NSString).appendingPathComponent(databaseFileName)
        guard FileManager.default.fileExists(atPath: dbPath) else { throw .walletMissing(directory) }
        guard !FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent(restoringMarkerName)) else {
            throw .storage(
                "a restore into \(directory) was interrupted before it finished; restore the same backup into it again (the restore starts over)"
            )
        }
        // An emptied or overwritten database would otherwise open as a new, empty wallet under
        // the old key: the notes would vanish from view with nothing said.
        let header = FileHandle(forReadingAtPath: dbPath).flatMap { handle in
            defer { try? handle.close() }
            return try? handle.read(upToCount: 16)
        }
        guard header == Data("SQLite format 3\0".utf8) else {
            throw .corruptFile(
                "\(dbPath) is empty or not a wallet database, so the notes and history it held are not there; nothing was changed: "
                    + "put back a copy of it, or restore your latest backup into a new wallet")
        }
        let store = keyStore ?? fileKeyStore(in: directory, passphrase: passphrase, cost: .interactive)
        return try Wallet(identity: store.load(), databasePath: dbPath, environment: environment)
    }

    /// The key file of the wallet in `directory` (the default store: the CLI's, and any wallet
    /// made without a `KeyStore`).
    static func fileKeyStore(in directory: String, passphrase: String?, cost: PassphraseBox.Cost) -> FileKeyStore {
        FileKeyStore(path: (directory as NSString).appendingPathComponent(keyFileName), passphrase: passphrase, cost: cost)
    }

    /// Opens a wallet whose key lives elsewhere (Secure Enclave on iPhone).
    public static func open(
        identity: WalletIdentity, databasePath: String, environment: WalletEnvironment = .live
    ) throws(WalletError) -> Wallet {
        try Wallet(identity: identity, databasePath: databasePath, environment: environment)
    }

    static func makeDirectory(_ path: String) throws(WalletError) {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .storage("cannot create \(path): \(error)")
        }
    }

    // MARK: Database helpers

    /// Runs `body` in one write transaction; any error rolls everything back.
    func write<T>(_ body: (Database) throws -> T) throws(WalletError) -> T {
        do {
            return try db.write(body)
        } catch let error as WalletError {
            throw error
        } catch {
            throw .storage(String(describing: error))
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(WalletError) -> T {
        do {
            return try db.read(body)
        } catch let error as WalletError {
            throw error
        } catch {
            throw .storage(String(describing: error))
        }
    }

    // MARK: Trust

    /// Installs the issuer's keyset and limits. The first call pins `authority`; later calls
    /// must present the same authority and a keyset sequence no older than the current one.
    public func installTrust(authority: PublicKeyBytes, keyset: [UInt8], limits: [UInt8]) throws(WalletError) {
        let verifiedKeyset: Keyset
        let verifiedLimits: Limits
        do {
            verifiedKeyset = try Keyset(decoding: keyset, authority: authority)
            verifiedLimits = try Limits(decoding: limits, authority: authority)
        } catch {
            throw .rejected(error)
        }
        try write { db in
            if let pinned = try Self.setting(db, "authority") {
                guard pinned == authority.bytes else { throw WalletError.authorityMismatch }
            }
            if let current = try Self.setting(db, "keyset"), let old = try? Keyset(unverifiedDecoding: current),
                old.sequence > verifiedKeyset.sequence
            {
                throw WalletError.staleKeyset(have: old.sequence, offered: verifiedKeyset.sequence)
            }
            try Self.setSetting(db, "authority", authority.bytes)
            try Self.setSetting(db, "keyset", verifiedKeyset.encoded)
            try Self.setSetting(db, "limits", verifiedLimits.encoded)
        }
    }

    /// The verifier built from the installed (already authority-checked) keyset and limits.
    func verifier(_ db: Database) throws -> NoteVerifier {
        guard let ks = try Self.setting(db, "keyset"), let ls = try Self.setting(db, "limits") else {
            throw WalletError.notConfigured
        }
        if let cached = cachedVerifier.withLock({ $0 }), cached.keyset == ks, cached.limits == ls { return cached.verifier }
        do {
            // Verified against the pinned authority when installed; the database is the wallet's own.
            let verifier = NoteVerifier(keyset: try Keyset(unverifiedDecoding: ks), limits: try Limits(unverifiedDecoding: ls))
            cachedVerifier.withLock { $0 = (ks, ls, verifier) }
            return verifier
        } catch {
            throw WalletError.corruptFile("stored keyset or limits: \(error)")
        }
    }

    public func limits() throws(WalletError) -> Limits {
        try read { db in try verifier(db).limits }
    }

    static func setting(_ db: Database, _ key: String) throws -> [UInt8]? {
        let data = try Data.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key])
        return data.map(Array.init)
    }

    static func setSetting(_ db: Database, _ key: String, _ value: [UInt8]) throws {
        try db.execute(
            sql: "INSERT INTO setting(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            arguments: [key, value.data])
    }

    // MARK: Deposits

    /// Adds notes bought online (each chain must verify and be owned by this wallet).
    /// Idempotent: depositing the same notes again adds nothing. Returns the value added.
    @discardableResult
    public func deposit(_ chains: [Chain]) throws(WalletError) -> UInt64 {
        let now = env.now()
        return try write { db in
            let verifier = try verifier(db)
            var added: UInt64 = 0
            var currency = verifier.limits.currency
            for chain in chains {
                let state: VerifiedState
                do throws(VerificationError) { state = try verifier.verify(chain, now: now) } catch {
                    throw WalletError.rejected(error)
                }
                guard state.owner == publicKey else { throw WalletError.notOwnedByWallet }
                currency = state.currency
                try Self.recordSpends(db, state)
                if try insertState(db, state, status: .available, origin: "purchased", now: now) {
                    added += state.amount
                }
            }
            if added > 0 {
                try addHistory(
                    db, direction: .purchased, counterparty: "issuer", amount: added, currency: currency, online: true,
                    method: .online, status: .completed, reference: nil, now: now)
            }
            return added
        }
    }

    /// Inserts a verified state; false if it was already there. (`ON CONFLICT(ref)`, not
    /// `INSERT OR IGNORE`: a broken CHECK must fail loudly, never drop a note silently.)
    func insertState(
        _ db: Database, _ state: VerifiedState, status: NoteStatus, origin: String, receivedIn: Digest32? = nil,
        now: Timestamp
    ) throws -> Bool {
        try db.execute(
            sql: """
                INSERT INTO note_state
                  (ref, chain, note_id, currency, amount, hops, expires_at, status, origin, received_in,
                   created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(ref) DO NOTHING
                """,
            arguments: [
                state.ref.bytes.data, state.chain.encoded.data, state.noteID.bytes.data, state.currency.code,
                sqlAmount(state.amount), state.hops, sqlTime(state.expiresAt), status.rawValue, origin,
                receivedIn?.bytes.data, sqlTime(now), sqlTime(now),
            ])
        return db.changesCount == 1
    }

    /// Records every spend of a verified chain. A different transfer already recorded for the
    /// same state is a double spend: the returned proof names the cheater.
    static func recordSpends(_ db: Database, _ state: VerifiedState) throws {
        if let proof = try conflict(db, state) { throw WalletError.doubleSpendDetected(proof) }
        for edge in state.spends {
            let proving = state.chain.proving(edge)
            try db.execute(
                sql: """
                    INSERT INTO spend_edge(state_ref, transfer_hash, transfer, proving_chain)
                    VALUES (?, ?, ?, ?) ON CONFLICT(state_ref) DO NOTHING
                    """,
                arguments: [
                    edge.state.bytes.data, edge.transfer.hash.bytes.data, edge.transfer.encoded.data,
                    proving.encoded.data,
                ])
        }
    }

    /// The first spend in `state` that contradicts one already recorded, as a fraud proof.
    static func conflict(_ db: Database, _ state: VerifiedState) throws -> FraudProof? {
        for edge in state.spends {
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT transfer_hash, transfer, proving_chain FROM spend_edge WHERE state_ref = ?",
                    arguments: [edge.state.bytes.data])
            else { continue }
            if row.bytes("transfer_hash") != edge.transfer.hash.bytes {
                let first = try Transfer(decoding: row.bytes("transfer"))
                let chain = try Chain(decoding: row.bytes("proving_chain"))
                return FraudProof(chain: chain, first: first, second: edge.transfer)
            }
        }
        return nil
    }

    // MARK: Queries

    /// The wallet's balances; see `Balance` for how the parts add up.
    public func balance() throws(WalletError) -> Balance {
        let now = env.now()
        return try read { db in try balanceLines(db, now: now) }
    }

    func balanceLines(_ db: Database, now: Timestamp) throws -> Balance {
        let limits = try verifier(db).limits
        let currency = limits.currency
        let t = sqlTime(now)
        let payableAfter = sqlTime(now &+ env.expiryMargin)
        // One pass over the held states; each CASE is one line of `Balance`. The spendable
        // condition is `spendableCoins`'s, so status and `pay` cannot disagree.
        let row = try Row.fetchOne(
            db,
            sql: """
                SELECT
                  COALESCE(SUM(CASE WHEN expires_at <= :now THEN amount END), 0) AS expired,
                  COALESCE(SUM(CASE WHEN expires_at > :now AND needs_online_check <> 0 THEN amount END), 0) AS checking,
                  COALESCE(SUM(CASE WHEN expires_at > :now AND needs_online_check = 0
                                     AND (expires_at <= :payable OR hops >= :maxHops) THEN amount END), 0) AS refresh,
                  COALESCE(SUM(CASE WHEN \(Self.payableCondition) THEN amount END), 0) AS spendable,
                  COALESCE(SUM(CASE WHEN status = 'received' THEN amount END), 0) AS unsettled
                FROM note_state WHERE status IN ('available','received') AND currency = :currency
                """,
            arguments: ["now": t, "payable": payableAfter, "maxHops": limits.maxHops, "currency": currency.code])
        let largest = try Int64.fetchAll(
            db,
            sql:
                "SELECT amount FROM note_state WHERE status IN ('available','received') AND currency = :currency AND \(Self.payableCondition) ORDER BY amount DESC LIMIT :n",
            arguments: [
                "payable": payableAfter, "maxHops": limits.maxHops, "currency": currency.code, "n": PaymentBundle.maxChains,
            ])
        return Balance(
            currency: currency,
            spendable: row?.amount("spendable") ?? 0,
            needsRefresh: row?.amount("refresh") ?? 0,
            needsOnlineCheck: row?.amount("checking") ?? 0,
            expired: row?.amount("expired") ?? 0,
            // The value travelling in payments without a receipt; their change is already spendable.
            reserved: UInt64(
                clamping: try Int64.fetchOne(
                    db, sql: "SELECT COALESCE(SUM(amount), 0) FROM outgoing_payment WHERE status = 'signed' AND currency = ?",
                    arguments: [currency.code]) ?? 0),
            unsettled: row?.amount("unsettled") ?? 0,
            largestPayment: Amount.sum(largest.map { UInt64(clamping: $0) }) ?? Amount.max,
            holding: try Self.holding(db, now: now),
            holdingLimit: limits.maxOfflineHolding)
    }

    /// The SQL condition (over `note_state`, with `:payable` = now + expiry margin and
    /// `:maxHops` bound) for a state `pay` may spend, given it is available or received.
    static let payableCondition = "needs_online_check = 0 AND expires_at > :payable AND hops < :maxHops"

    /// Value held against the offline holding limit: unexpired available or received notes.
    /// `receive` refuses a payment that would take this above `Limits.maxOfflineHolding`.
    static func holding(_ db: Database, now: Timestamp) throws -> UInt64 {
        UInt64(
            clamping: try Int64.fetchOne(
                db,
                sql:
                    "SELECT COALESCE(SUM(amount), 0) FROM note_state WHERE status IN ('available','received') AND expires_at > ?",
                arguments: [sqlTime(now)]) ?? 0)
    }

    /// Double spends this wallet caught offline, to report online.
    public func fraudProofs() throws(WalletError) -> [FraudProof] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM fraud_proof ORDER BY id").map { row in
                FraudProof(
                    chain: try Chain(decoding: row.bytes("proving_chain")),
                    first: try Transfer(decoding: row.bytes("first_transfer")),
                    second: try Transfer(decoding: row.bytes("second_transfer")))
            }
        }
    }

    /// Note states by status (all when nil), oldest first, for sync and inspection.
    public func states(_ status: NoteStatus? = nil) throws(WalletError) -> [StoredState] {
        try read { db in
            let rows =
                try status.map {
                    try Row.fetchAll(
                        db, sql: "SELECT * FROM note_state WHERE status = ? ORDER BY created_at, ref", arguments: [$0.rawValue])
                } ?? Row.fetchAll(db, sql: "SELECT * FROM note_state ORDER BY created_at, ref")
            return try rows.map { row in
                StoredState(
                    ref: StateRef(uncheckedBytes: row.bytes("ref")), chain: try Chain(decoding: row.bytes("chain")),
                    status: NoteStatus(rawValue: row["status"]) ?? .spent,
                    needsOnlineCheck: (row["needs_online_check"] as Int64) != 0,
                    restored: (row["needs_online_check"] as Int64) == Self.restoredMark)
            }
        }
    }

    /// Applies the server's answer about restored notes: unspent ones become spendable again,
    /// spent ones are retired.
    public func applyOnlineCheck(_ results: [StateRef: OnlineStateCheck]) throws(WalletError) {
        let now = env.now()
        try write { db in
            for (ref, result) in results {
                switch result {
                case .unspent:
                    // Restored states are exchanged, never released (§5.2 rule 5).
                    try db.execute(
                        sql:
                            "UPDATE note_state SET needs_online_check = 0, updated_at = ? WHERE ref = ? AND needs_online_check = 1",
                        arguments: [sqlTime(now), ref.bytes.data])
                case .spent:
                    try db.execute(
                        sql:
                            "UPDATE note_state SET status = 'spent', needs_online_check = 0, updated_at = ? WHERE ref = ? AND status IN ('available','received')",
                        arguments: [sqlTime(now), ref.bytes.data])
                }
            }
        }
    }

    /// Marks received states redeemed online: their value is now in the account.
    public func markSettled(_ refs: [StateRef]) throws(WalletError) {
        let now = env.now()
        try write { db in try updateStates(db, refs, set: "status = 'settled'", where: "status = 'received'", now: now) }
    }

    /// `UPDATE note_state SET <assignments> … WHERE ref = ? AND <condition>` for each of `refs`;
    /// a state not in the expected condition is left as it is.
    func updateStates(_ db: Database, _ refs: [StateRef], set assignments: String, where condition: String, now: Timestamp) throws
    {
        let statement = try db.cachedStatement(
            sql: "UPDATE note_state SET \(assignments), updated_at = ? WHERE ref = ? AND \(condition)")
        for ref in refs {
            try statement.execute(arguments: [sqlTime(now), ref.bytes.data])
        }
    }

    @discardableResult
    func addHistory(
        _ db: Database, direction: HistoryEntry.Direction, counterparty: String, amount: UInt64, currency: Currency,
        online: Bool, method: PaymentMethod, status: HistoryEntry.Status, reference: Digest32?, now: Timestamp
    ) throws -> Int64 {
        try db.execute(
            sql: """
                INSERT INTO history(direction, counterparty, amount, currency, online, method, status, reference,
                                    created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                direction.rawValue, counterparty, sqlAmount(amount), currency.code, online, method.rawValue,
                status.rawValue, reference?.bytes.data, sqlTime(now), sqlTime(now),
            ])
        return db.lastInsertedRowID
    }
}
