#if os(Linux)
import Foundation
import Testing

/// A wallet directory whose key file is there but whose database is missing, empty or not a
/// database held a wallet that lost its notes: every command that opens it refuses, says how to
/// restore, and changes no file; `init` and `restore` do not start over in it.
@Suite("wallet with a lost database", .serialized)
struct LostDatabaseTests {
    enum Damage: String, CaseIterable {
        case empty, missing, garbage
    }

    @Test(arguments: Damage.allCases)
    func aKeyWithoutItsDatabaseIsRefusedAndNothingChanges(damage: Damage) throws {
        let cli = try CLI()
        defer { cli.remove() }
        let wallet = cli.path("lost")
        let created = try cli.run(["init", "--json", "--wallet", wallet])
        #expect(created.status == 0, "init: \(created.errorMessage)")
        let backup = cli.path("lost.backup")
        let saved = try cli.run(["backup", "--json", "--wallet", wallet, backup])
        #expect(saved.status == 0, "backup: \(saved.errorMessage)")

        let database = wallet + "/wallet.sqlite"
        for companion in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + companion) }
        switch damage {
        case .empty: try Data().write(to: URL(fileURLWithPath: database))
        case .missing: try FileManager.default.removeItem(atPath: database)
        case .garbage: try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: database))
        }
        let before = try files(in: wallet)

        let commands: [[String]] = [
            ["status", "--offline"], ["status"], ["request", "1.00"], ["history"], ["sync"],
            ["backup", cli.path("again.backup")],
            ["login", "--server", "http://127.0.0.1:9", "someone@cli.test"], ["logout"], ["settings"],
            ["init"], ["init", "--server", "http://127.0.0.1:9"], ["restore", backup],
        ]
        for command in commands {
            let result = try cli.run(command + ["--json", "--wallet", wallet])
            #expect(result.status == 9, "\(command): \(result.status) \(result.errorMessage)")
            #expect(result.errorCode == "wallet_database_lost", "\(command): \(result.errorMessage)")
            #expect(result.errorMessage.contains("wallet restore BACKUP-FILE --wallet NEW-DIR"), "\(command)")
            #expect(result.errorMessage.contains("nothing was changed"), "\(command)")
            #expect(try files(in: wallet) == before, "\(command) changed the wallet directory")
        }
        // The human text says the same on stderr.
        let human = try cli.run(["status", "--offline", "--wallet", wallet])
        #expect(human.status == 9)
        #expect(
            human.stderr.contains(
                damage == .missing ? "is missing" : damage == .empty ? "is empty (0 bytes)" : "is not a wallet database"))

        // The printed way out works: the backup restores into a new directory.
        let restored = try cli.run(["restore", "--json", "--wallet", cli.path("new-dir"), backup])
        #expect(restored.status == 0, "\(restored.errorMessage)")
    }

    /// Every file's name and contents (the lock file included: nothing new may appear).
    private func files(in directory: String) throws -> [String: Data] {
        var contents: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            contents[name] = FileManager.default.contents(atPath: directory + "/" + name) ?? Data()
        }
        return contents
    }
}
#endif
