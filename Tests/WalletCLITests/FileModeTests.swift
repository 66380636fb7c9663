#if os(Linux)
import Foundation
import Testing

/// A wallet's files are the owner's only: the directory 0700 and every file in it 0600, whatever
/// mode the directory had before `init` and whatever the umask, after commands have written the
/// database, its WAL files and the settings.
@Suite("wallet file modes", .serialized)
struct FileModeTests {
    @Test(arguments: [0o755, 0o777])
    func aWalletInAnExistingOpenFolderIsMadePrivate(folderMode: Int) throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let directory = cli.path("open-\(String(folderMode, radix: 8))")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: folderMode], ofItemAtPath: directory)
        #expect(try cli.run(["init", "--json", "--wallet", directory, "--server", server.url]).status == 0)
        #expect(
            try cli.run(["register", "--json", "--wallet", directory, "modes-\(UUID().uuidString.prefix(6))@cli.test"]).status
                == 0)
        #expect(try cli.run(["status", "--json", "--wallet", directory]).status == 0)

        let folder = try mode(directory)
        #expect(folder == 0o700, "the folder is \(String(folder, radix: 8))")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(files.contains("wallet.sqlite"))
        for file in files where !file.hasPrefix(".") || file == ".lock" {
            let fileMode = try mode(directory + "/" + file)
            #expect(fileMode & 0o077 == 0, "\(file) is \(String(fileMode, radix: 8)): readable by others")
        }
    }

    private func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }
}
#endif
