import Foundation
import SQLStore

/// The database under an `IssuerHarness`: SQLite always, PostgreSQL when OW_TEST_POSTGRES_URL
/// names a server (each harness in its own schema). Test support only.
public enum IssuerBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite, postgres

    /// The backends to run on here: PostgreSQL only when the environment provides one.
    public static var available: [IssuerBackend] {
        ProcessInfo.processInfo.environment["OW_TEST_POSTGRES_URL"] == nil ? [.sqlite] : [.sqlite, .postgres]
    }

    public var description: String { rawValue }

    /// A fresh, empty database (SQLite in `dir`; a new PostgreSQL schema).
    public func database(dir: String) async throws -> any SQLDatabase {
        switch self {
        case .sqlite:
            return try SQLiteStore(path: dir + "/server.sqlite")
        case .postgres:
            guard let url = ProcessInfo.processInfo.environment["OW_TEST_POSTGRES_URL"] else {
                throw IssuerBackendError("OW_TEST_POSTGRES_URL is not set; run under scripts/with-postgres.")
            }
            let schema = "app_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            let admin = try PostgresStore(url: url, maxConnections: 1)
            try await admin.transaction { try await $0.execute("CREATE SCHEMA \(schema)") }
            await admin.close()
            return try PostgresStore(url: url + "?search_path=\(schema)", maxConnections: 8)
        }
    }
}

/// Why a test database could not be opened.
public struct IssuerBackendError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
