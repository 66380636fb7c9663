import Foundation
import SQLStore
import TestSupport
import Testing

/// The server's SQLite file is private, and what SQLite hands
/// back is read without trapping.
@Suite struct SQLiteFileTests {
    func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    /// Removed with everything in it when the test is over (one suite instance per test).
    let scratch: TemporaryDirectory
    init() throws { scratch = try TemporaryDirectory("sqlite-file") }

    func directory() throws -> String {
        let dir = scratch.path(UUID().uuidString)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func aNewDatabaseAndItsWALFilesAreOwnerOnly() async throws {
        let path = try directory() + "/server.sqlite"
        let store = try SQLiteStore(path: path)
        try await store.transaction { conn in
            try await conn.execute("CREATE TABLE t (v INTEGER)")
            try await conn.execute("INSERT INTO t VALUES (1)")
        }
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(FileManager.default.fileExists(atPath: file), "\(file)")
            #expect(try mode(file) == 0o600, "\(file)")
        }
    }

    /// A file left readable by an older version is narrowed when opened.
    @Test func anExistingReadableDatabaseIsNarrowed() async throws {
        let path = try directory() + "/server.sqlite"
        try await SQLiteStore(path: path).transaction { try await $0.execute("CREATE TABLE t (v INTEGER)") }
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        }
        _ = try SQLiteStore(path: path)
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            #expect(try mode(file) == 0o600, "\(file)")
        }
    }

    /// A REAL (what SQLite makes of an overflowing integer sum) is a typed error, not a trap.
    @Test func aRealIsAnErrorNotATrap() async throws {
        let store = try SQLiteStore(path: try directory() + "/server.sqlite")
        for sql in ["SELECT 9223372036854775807 + 1 AS v", "SELECT 1e300 AS v", "SELECT 2.5 AS v"] {
            await #expect(throws: SQLError.self, "\(sql)") { try await store.transaction { try await $0.query(sql) } }
        }
        do {
            _ = try await store.transaction { try await $0.query("SELECT 9223372036854775807 + 1 AS total") }
        } catch let error as SQLError {
            guard case .nonInteger(let column, _) = error else {
                Issue.record("expected nonInteger, got \(error)")
                return
            }
            #expect(column == "total")
        }
    }
}
