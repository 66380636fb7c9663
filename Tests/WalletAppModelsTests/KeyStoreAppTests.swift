import Foundation
import OfflineNotes
import Synchronization
import Testing
import WalletAppModels
import WalletCore
import WalletCoreTesting
import WalletFlows
import WalletTestSupport

/// The app's key store (the Secure Enclave or the Keychain on a phone; a simulated enclave
/// here) reaches onboarding, `AppModel.open` and restore through `AppModel`'s factory, against
/// a real issuer on loopback and real SQLite wallets.
@MainActor
@Suite struct KeyStoreAppTests {
    static func app(_ enclave: SimulatedEnclave, restoreInto: (@Sendable () -> String)? = nil) -> AppModel {
        let settings = InMemorySettingsStore()
        return AppModel(
            settings: settings, connectivity: ManualConnectivity(.offline), scheduler: RecordingScheduler(),
            notifier: RecordingNotifier(), lock: LockModel(gate: NoBiometrics(), settings: settings),
            restoreInto: restoreInto, restoreKeyCost: .testing,
            keyStore: { directory in
                // As the app does: a wallet made before key stores keeps its key file.
                FileManager.default.fileExists(atPath: directory + "/" + Wallet.keyFileName) ? nil : enclave.store(for: directory)
            })
    }

    @Test func onboardingCreatesTheKeyInTheStoreWithoutAPassphraseStepAndOpenLoadsIt() async throws {
        try await LoopbackIssuer.with { h in
            let enclave = SimulatedEnclave()
            let store = MemoryFlowStore()
            let directory = h.dir + "/phone-wallet"
            let app = Self.app(enclave)
            let onboarding = app.makeOnboarding(
                walletDirectory: directory, credentials: store, flowState: store, keyCost: .testing)
            #expect(!onboarding.hasWalletStep)
            onboarding.server = h.baseURL.absoluteString
            await onboarding.submitStep()
            #expect(onboarding.step == .account && onboarding.stepCaption == "Step 2 of 2 · Account")
            onboarding.email = "enclave-\(UUID().uuidString.prefix(6))@keystore.test"
            onboarding.password = "correct horse battery"
            await onboarding.submitStep()
            #expect(onboarding.error == nil)
            #expect(onboarding.step == .done, "no passphrase step: the key store protects the key")
            #expect(enclave.calls == [.create(directory)])
            #expect(!FileManager.default.fileExists(atPath: directory + "/" + Wallet.keyFileName), "no key file")
            #expect(app.finishOnboarding(onboarding))
            let created = try #require(app.wallet)
            #expect(created.publicKey == enclave.publicKey(for: directory))
            // Registered to the account: it buys.
            let session = try #require(app.session)
            try await session.client.fund(3_000)
            #expect(try await session.purchase(1_000) == 1_000)
            await app.stop()

            // The next launch opens it through the store, with the same key and notes.
            let relaunched = Self.app(enclave)
            try await relaunched.open(directory: directory, credentials: store, flowState: store)
            #expect(enclave.calls == [.create(directory), .load(directory)])
            #expect(relaunched.wallet?.publicKey == created.publicKey && relaunched.session != nil)
            #expect(try await relaunched.wallet?.balance().spendable == 1_000)
            await relaunched.stop()
        }
    }

    @Test func aWalletMadeWithItsKeyFileStillOpensAndOnboardingWithoutAStoreAsksForThePassphrase() async throws {
        try await LoopbackIssuer.with { h in
            let enclave = SimulatedEnclave()
            let (_, directory) = try h.wallet("before-key-stores")
            let store = MemoryFlowStore()
            let app = Self.app(enclave)
            await #expect(throws: WalletFlowError.self) {
                try await app.open(directory: directory, credentials: store, flowState: store)
            }
            // The key file opened (the only error is the missing login), the store never asked.
            #expect(enclave.calls.isEmpty)
            let plain = AppModel(
                settings: InMemorySettingsStore(), connectivity: ManualConnectivity(.offline), scheduler: RecordingScheduler(),
                notifier: RecordingNotifier(), lock: LockModel(gate: NoBiometrics(), settings: InMemorySettingsStore()))
            let onboarding = plain.makeOnboarding(walletDirectory: h.dir + "/plain", credentials: store, flowState: store)
            #expect(onboarding.hasWalletStep && onboarding.stepCaption == "Step 1 of 3 · Server")
        }
    }

    @Test func restoreCreatesTheNewKeyInTheStoreForTheNewDirectory() async throws {
        try await LoopbackIssuer.with { h in
            let (old, oldStore) = try await h.loggedIn("lost-phone", funds: 10_000)
            _ = try await old.purchase(2_000)
            let backupFile = try old.wallet.exportBackup(passphrase: BackupRestoreTests.strong, cost: .testing)

            let enclave = SimulatedEnclave()
            let freshDirectory = h.dir + "/new-phone"
            let fresh = try Wallet.create(directory: freshDirectory, keyStore: enclave.store(for: freshDirectory))
            let store = MemoryFlowStore()
            let (session, _) = try await WalletSession.logIn(
                wallet: fresh, server: h.baseURL.absoluteString, email: try #require(try oldStore.loadLogin().email),
                password: "correct horse battery", credentials: store, flowState: store)
            let target = h.dir + "/restored-" + UUID().uuidString.prefix(6)
            let app = Self.app(enclave, restoreInto: { target })
            app.start(wallet: AsyncWallet(fresh), session: session)
            let restore = try #require(app.restore)
            restore.chooseFile(backupFile, name: "Offline Wallet.owbackup")
            restore.passphrase = BackupRestoreTests.strong
            restore.submit()
            await restore.pending?.value
            guard case .restored = restore.state else {
                Issue.record("expected a restore, got \(restore.state)")
                return
            }
            #expect(enclave.calls == [.create(freshDirectory), .create(target)])
            let restored = try #require(app.wallet)
            #expect(restored.publicKey == enclave.publicKey(for: target) && restored.publicKey != fresh.publicKey)
            #expect(!FileManager.default.fileExists(atPath: target + "/" + Wallet.keyFileName))
            #expect(try await restored.balance().spendable == 2_000, "exchanged under the store's key")
            await app.stop()
        }
    }
}
