import Foundation
import Synchronization
import TestSupport
import Testing
import WalletCore
import WalletFlows

/// `config.json`: the command line's settings file, read and written by the flows' store.
@Suite("ConfigFileStore keeps the config.json format")
struct ConfigFileStoreTests {
    /// Removed with everything in it when the test is over (one suite instance per test).
    let scratch: TemporaryDirectory
    init() throws { scratch = try TemporaryDirectory("flows-config") }

    func directory() throws -> String {
        let dir = scratch.path(UUID().uuidString)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func readsAndWritesTheExistingFormat() throws {
        let dir = try directory()
        let path = dir + "/config.json"
        // A file as earlier releases wrote it.
        let old = """
            {"accountId":7,"autoRecharge":{"target":5000,"threshold":1000},"email":"ann@example.com",
             "lastSync":1800000000,"pendingPurchase":{"amount":300,"key":"K-1"},"refreshToken":"tok","server":"http://127.0.0.1:8080"}
            """
        FileManager.default.createFile(atPath: path, contents: Data(old.utf8))
        let store = ConfigFileStore(path: path, seal: nil)
        #expect(
            try store.loadLogin()
                == StoredLogin(server: "http://127.0.0.1:8080", email: "ann@example.com", accountId: 7, refreshToken: "tok"))
        #expect(
            try store.loadFlowState()
                == FlowState(
                    pendingPurchase: PendingPurchase(key: "K-1", amount: 300),
                    autoRecharge: AutoRechargeRule(threshold: 1_000, target: 5_000),
                    lastSync: 1_800_000_000))

        // Saving one part keeps the other; the file stays owner-only JSON with the same keys.
        try store.updateFlowState { $0.pendingPurchase = nil }
        try store.clearLogin()
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        #expect(Set(json.keys) == ["autoRecharge", "email", "lastSync", "server"])
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))

        FileManager.default.createFile(atPath: path, contents: Data("{not json".utf8))
        #expect(throws: FlowStoreError.self) { try store.loadLogin() }
    }

    @Test func theTokenIsSealedUnderAnEncryptedKeyAndOnlyThatWalletOpensIt() throws {
        let dir = try directory()
        let wallet = try Wallet.create(directory: dir + "/w", passphrase: "correct horse battery", keyCost: .testing)
        let seal = try #require(LoginTokenSeal(wallet: wallet, directory: dir + "/w"))
        #expect(seal.sealsNewTokens)
        let path = dir + "/config.json"
        let store = ConfigFileStore(path: path, seal: seal)
        try store.saveLogin(StoredLogin(server: "http://s", email: "a@b.test", accountId: 1, refreshToken: "secret-token"))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("secret-token") && text.contains("sealedRefreshToken"))
        #expect(try store.loadLogin().refreshToken == "secret-token")

        // Another wallet's key does not open it: the token is dropped, and the caller told.
        let other = try Wallet.create(directory: dir + "/o", passphrase: "correct horse battery", keyCost: .testing)
        let dropped = Mutex<[String]>([])
        let foreign = ConfigFileStore(path: path, seal: LoginTokenSeal(wallet: other, directory: dir + "/o")) { p in
            dropped.withLock { $0.append(p) }
        }
        #expect(try foreign.loadLogin().refreshToken == nil)
        #expect(dropped.withLock { $0 } == [path])

        // An unencrypted key: the token stays plain (sealing under a plain key protects nothing).
        let plainWallet = try Wallet.create(directory: dir + "/p", keyCost: .testing)
        let plainSeal = try #require(LoginTokenSeal(wallet: plainWallet, directory: dir + "/p"))
        #expect(!plainSeal.sealsNewTokens)
        let plain = ConfigFileStore(path: dir + "/plain.json", seal: plainSeal)
        try plain.saveLogin(StoredLogin(server: "http://s", refreshToken: "visible"))
        #expect(try String(contentsOfFile: dir + "/plain.json", encoding: .utf8).contains("\"refreshToken\" : \"visible\""))
    }

    @Test func anAutoRechargeRuleMustBuySomethingWithinTheHoldingLimit() throws {
        #expect(throws: AutoRechargeRuleError.targetNotAboveThreshold) {
            try AutoRechargeRule(validatingThreshold: 1_000, target: 1_000, maxOfflineHolding: nil)
        }
        #expect(throws: AutoRechargeRuleError.aboveHoldingLimit(5_000)) {
            try AutoRechargeRule(validatingThreshold: 1_000, target: 6_000, maxOfflineHolding: 5_000)
        }
        #expect(
            try AutoRechargeRule(validatingThreshold: 1_000, target: 5_000, maxOfflineHolding: 5_000)
                == AutoRechargeRule(threshold: 1_000, target: 5_000))
    }
}
