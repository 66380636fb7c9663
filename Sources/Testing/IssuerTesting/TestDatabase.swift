import Foundation
import IssuerCore
import Logging
import NIOCore
import NIOPosix
import OfflineNotes
import PostgresNIO
import SQLStore
import Synchronization
import TestSupport
import Testing

/// Which database a test runs on. PostgreSQL runs when OW_TEST_POSTGRES_URL names a server
/// (CI starts a throwaway one); OW_REQUIRE_POSTGRES=1 makes its absence a failure.
public enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres

    public static var url: String? { ProcessInfo.processInfo.environment["OW_TEST_POSTGRES_URL"] }
    public static var available: [Backend] { url == nil ? [.sqlite] : [.sqlite, .postgres] }
    public var testDescription: String { rawValue }

    /// A fresh, empty database for one test, and a way to open another independent
    /// connection to it (a second server process, as far as the database can tell).
    /// The database cleans up after itself: once the last handle to it is gone, the SQLite
    /// file's directory is removed or the PostgreSQL schema dropped (`ScratchDatabase`).
    public func makeDatabase() async throws -> (database: CleaningDatabase, openAnother: @Sendable () throws -> any SQLDatabase) {
        switch self {
        case .sqlite:
            let directory = try ScratchDatabase.sqlite()
            let path = directory.path + "/server.sqlite"
            return (
                CleaningDatabase(try SQLiteStore(path: path), owner: directory),
                { CleaningDatabase(try SQLiteStore(path: path), owner: directory) }
            )
        case .postgres:
            let schema = try await ScratchDatabase.postgres(url: try #require(Self.url), prefix: "t")
            return (CleaningDatabase(try schema.store(), owner: schema), { CleaningDatabase(try schema.store(), owner: schema) })
        }
    }
}

/// postgres-nio warns when a query is queued before `run()` starts; tests do that on purpose.
public let quietLogger: Logger = {
    var logger = Logger(label: "test.pg")
    logger.logLevel = .error
    return logger
}()

/// A scratch database that removes itself when its owner lets go of it: a temporary directory
/// for SQLite files, or a PostgreSQL schema of its own (dropped with everything in it).
public final class ScratchDatabase: Sendable {
    /// The SQLite directory, or nil for PostgreSQL.
    public let path: String
    /// The server URL and schema, for PostgreSQL.
    public let url: String?
    public let schema: String?
    private let removed = Mutex(false)

    /// A fresh temporary directory for SQLite files.
    public static func sqlite(prefix: String = "scratch-db") throws -> ScratchDatabase {
        let path = NSTemporaryDirectory() + prefix + "-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return ScratchDatabase(path: path, url: nil, schema: nil)
    }

    /// A fresh schema `PREFIX_<uuid>` on the PostgreSQL server at `url`.
    public static func postgres(url: String, prefix: String) async throws -> ScratchDatabase {
        let schema = prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try PostgresStore(url: url, maxConnections: 1, logger: quietLogger)
        try await admin.transaction { try await $0.execute("CREATE SCHEMA \(schema)") }
        await admin.close()
        return ScratchDatabase(path: "", url: url, schema: schema)
    }

    private init(path: String, url: String?, schema: String?) {
        self.path = path
        self.url = url
        self.schema = schema
    }

    /// The URL that puts a connection in this schema (for `wallet-server --postgres`).
    public var schemaURL: String? { url.flatMap { url in schema.map { url + "?search_path=\($0)" } } }

    /// A connection pool in this schema.
    public func store(maxConnections: Int = 8) throws -> PostgresStore {
        guard let url, let schema else { throw TestSupportError("not a PostgreSQL scratch database") }
        let c = try #require(URLComponents(string: url))
        var config = PostgresClient.Configuration(
            host: c.host ?? "127.0.0.1", port: c.port ?? 5432, username: c.user ?? "postgres", password: c.password,
            database: c.path.split(separator: "/").first.map(String.init), tls: .disable)
        config.options.additionalStartupParameters = [("search_path", schema)]
        config.options.maximumConnections = maxConnections
        return PostgresStore(configuration: config, logger: quietLogger)
    }

    /// Removes the database now (once): for scoped helpers that know the test is over even if
    /// something (a task still winding down) holds the database. Also runs at deinit.
    public func remove() {
        guard
            removed.withLock({ was in
                defer { was = true }
                return !was
            })
        else { return }
        if let url, let schema { Self.drop(schema, url: url) } else { try? FileManager.default.removeItem(atPath: path) }
    }

    deinit { remove() }

    /// Drops the schema over a connection of its own, waiting on NIO's event loop rather than
    /// on Swift concurrency (a deinit cannot await, and blocking the cooperative pool on work it
    /// must run itself could deadlock). A lock held elsewhere gives up after 10 s instead of
    /// hanging the test run; the schema is then left behind, and said so.
    private static func drop(_ schema: String, url: String) {
        guard let c = URLComponents(string: url) else { return }
        let configuration = PostgresConnection.Configuration(
            host: c.host ?? "127.0.0.1", port: c.port ?? 5432, username: c.user ?? "postgres", password: c.password,
            database: c.path.split(separator: "/").first.map(String.init), tls: .disable)
        do {
            let connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 0, logger: quietLogger
            ).wait()
            defer { try? connection.close().wait() }
            _ = try connection.simpleQuery("SET lock_timeout = '10s'").wait()
            _ = try connection.simpleQuery("DROP SCHEMA IF EXISTS \(schema) CASCADE").wait()
        } catch {
            print("test database: could not drop schema \(schema): \(error)")
        }
    }
}

/// A database that keeps its scratch owner alive as long as anything (an issuer, a second
/// process) still uses it, so the cleanup runs only after the last user is gone.
public struct CleaningDatabase: SQLDatabase {
    /// The store itself (for tests that read its counters, such as `PostgresStore.conflictRetries`).
    public let base: any SQLDatabase
    let owner: ScratchDatabase

    public init(_ base: any SQLDatabase, owner: ScratchDatabase) {
        self.base = base
        self.owner = owner
    }

    public var dialect: SQLDialect { base.dialect }
    public func transaction<T: Sendable>(durable: Bool, _ body: (any SQLConnection) async throws -> T) async throws -> T {
        try await base.transaction(durable: durable, body)
    }
    public func outsideTransaction<T: Sendable>(_ body: (any SQLConnection) async throws -> T) async throws -> T {
        try await base.outsideTransaction(body)
    }
    public func close() async { await base.close() }

    /// Removes the scratch database now (see `ScratchDatabase.remove`).
    public func remove() { owner.remove() }
}

extension Issuer {
    /// An issuer on `database` only to read the books (`checkLedger`, balances) of a server
    /// process that ran on it: its keys and settings do not matter.
    public static func readingBooks(of database: any SQLDatabase) async throws -> Issuer {
        try await Issuer.open(
            database: database,
            keyring: IssuerKeyring(
                authority: SoftwareSigner(), issuing: [.init(signer: SoftwareSigner(), validFrom: 0, validUntil: 1)]),
            config: IssuerConfig(currency: Currency("EUR")!), challengeSecret: [1])
    }
}
