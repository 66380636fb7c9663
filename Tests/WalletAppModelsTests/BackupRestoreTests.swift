import Foundation
import Observation
import OfflineNotes
import Synchronization
import TestSupport
import Testing
import WalletAppModels
import WalletCore
import WalletFlows
import WalletTestSupport

/// A destination that refuses (the person cancelled the exporter, the disk is full).
struct RefusingDestination: BackupDestination {
    func write(_ bytes: [UInt8], suggestedName: String) async throws(BackupDestinationError) -> String {
        throw BackupDestinationError("Saving was cancelled. Nothing was saved.")
    }
}

/// Every state a restore screen showed, as observation reports its changes.
@MainActor
final class StateRecorder {
    private(set) var states: [RestoreModel.State] = []
    private let model: RestoreModel

    init(_ model: RestoreModel) {
        self.model = model
        record()
    }

    private func record() {
        let state = withObservationTracking {
            model.state
        } onChange: { [weak self] in
            Task { @MainActor in self?.record() }
        }
        if states.last != state { states.append(state) }
    }
}

/// Settings → Back up and Restore against a real issuer: the passphrase rule of the command
/// line, the encrypted file, and a restore under a new key whose sync exchanges the notes.
@MainActor
@Suite struct BackupRestoreTests {
    static let strong = "correct staple 42 horses"

    /// This test's folder for backup files, removed when the test ends.
    let scratch: TemporaryDirectory
    init() throws { scratch = try TemporaryDirectory("backups") }

    @Test func backupTakesThePassphraseTwiceUnderTheCommandLinesRuleAndWritesTheEncryptedFile() async throws {
        try await LoopbackIssuer.with { h in
            let (session, store) = try await h.loggedIn("backer", funds: 10_000)
            _ = try await session.purchase(2_000)
            let email = try #require(try store.loadLogin().email)
            let home = HomeModel(session: session, connectivity: ManualConnectivity(.offline))
            let folder = URL(fileURLWithPath: scratch.path)
            let settings = SettingsModel(
                session: session, home: home, settings: InMemorySettingsStore(), biometrics: NoBiometrics(),
                backupDestination: FileBackupDestination(directory: folder), backupCost: .testing)
            let backup = settings.backup

            backup.appear()
            #expect(backup.focus.focused == .passphrase)
            backup.passphrase = "short1"
            #expect(backup.problem == "This passphrase is too weak: \(PassphrasePolicy.weakness("short1")!).")
            backup.passphrase = email + " 2024"
            #expect(backup.problem?.contains("account email") == true, "\(backup.problem ?? "nil")")
            backup.passphrase = Self.strong
            #expect(backup.problem == nil && !backup.canBackUp, "the confirmation is still empty")
            backup.focusNext()
            #expect(backup.focus.focused == .confirmation)
            backup.confirmation = Self.strong + "x"
            #expect(backup.problem == "The two passphrases differ.")
            await backup.backUp()
            #expect(backup.state == .failed("The two passphrases differ. Type the same passphrase twice; nothing was saved."))
            #expect(backup.focus.focused == .confirmation)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "nothing written")

            backup.confirmation = Self.strong
            #expect(backup.canBackUp)
            backup.focusNext()  // Return on the last field backs up
            await backup.pending?.value
            guard case .done(let bytes, let location) = backup.state else {
                Issue.record("expected a backup, got \(backup.state)")
                return
            }
            #expect(backup.passphrase.isEmpty && backup.confirmation.isEmpty, "the passphrase is not kept")
            let file = try #require(FileManager.default.contents(atPath: location))
            #expect(file.count == bytes && location.hasSuffix(".owbackup"))
            #expect(!file.contains(Data(email.utf8)), "encrypted")
            // It is a real backup: it restores with that passphrase and not with another.
            let scratch = h.dir + "/check-" + UUID().uuidString.prefix(6)
            #expect(throws: WalletError.wrongPassphrase) {
                try Wallet.restore(Array(file), passphrase: "another passphrase 99", into: scratch, keyCost: .testing)
            }
            let copy = try Wallet.restore(Array(file), passphrase: Self.strong, into: scratch, keyCost: .testing)
            #expect(try copy.balance().needsOnlineCheck == 2_000)

            // A destination that fails says so; a weak passphrase never reaches it.
            let refused = BackupModel(wallet: session.wallet, email: email, destination: RefusingDestination(), cost: .testing)
            refused.passphrase = Self.strong
            refused.confirmation = Self.strong
            await refused.backUp()
            #expect(refused.state == .failed("Saving was cancelled. Nothing was saved."))
            refused.passphrase = "password2024!"
            refused.confirmation = "password2024!"
            await refused.backUp()
            guard case .failed(let why) = refused.state else { throw RestoreError.noFile }
            #expect(why.contains("common password") && refused.focus.focused == .passphrase)
        }
    }

    @Test func restoreIntoAnEmptyWalletGivesANewKeyAndItsSyncExchangesTheNotes() async throws {
        try await LoopbackIssuer.with { h in
            // The old phone bought 30.00 and made a backup; then it was lost.
            let (old, oldStore) = try await h.loggedIn("lost", funds: 10_000)
            _ = try await old.purchase(3_000)
            let backupFile = try old.wallet.exportBackup(passphrase: Self.strong, cost: .testing)

            // The new phone: an empty wallet logged in to the same account.
            let (fresh, _) = try h.wallet("new-phone")
            let store = MemoryFlowStore()
            let (session, _) = try await WalletSession.logIn(
                wallet: fresh, server: h.baseURL.absoluteString, email: try #require(try oldStore.loadLogin().email),
                password: "correct horse battery", credentials: store, flowState: store)
            let targets = Mutex<[String]>([])
            let settings = InMemorySettingsStore()
            let app = AppModel(
                settings: settings, connectivity: ManualConnectivity(.offline), scheduler: RecordingScheduler(),
                notifier: RecordingNotifier(), lock: LockModel(gate: NoBiometrics(), settings: settings),
                restoreInto: {
                    let path = h.dir + "/restored-" + UUID().uuidString.prefix(6)
                    targets.withLock { $0.append(path) }
                    return path
                }, restoreKeyCost: .testing)
            app.start(wallet: AsyncWallet(fresh), session: session)
            let restore = try #require(app.restore)
            #expect(app.settingsModel?.restore === restore, "Settings shows the app's restore")
            let settingsBefore = try #require(app.settingsModel)

            // Every bad path changes nothing.
            await restore.restore()
            #expect(restore.state == .failed(.noFile))
            restore.chooseFile(at: URL(fileURLWithPath: h.dir + "/no-such-backup"))
            guard case .failed(.unreadableFile) = restore.state else { throw RestoreError.noFile }
            restore.chooseFile(Array("not a backup at all".utf8), name: "notes.txt")
            restore.passphrase = Self.strong
            await restore.restore()
            guard case .failed(.unreadableFile) = restore.state else { throw RestoreError.noFile }
            restore.chooseFile(backupFile, name: "Offline Wallet.owbackup")
            restore.passphrase = "not the passphrase 1"
            restore.submit()
            await restore.pending?.value
            #expect(restore.state == .failed(.wrongPassphrase))
            #expect(restore.focus.focused == .passphrase)
            #expect(app.wallet?.publicKey == fresh.publicKey && app.settingsModel === settingsBefore)
            #expect(targets.withLock { $0 }.allSatisfy { !FileManager.default.fileExists(atPath: $0 + "/wallet.sqlite") })

            restore.passphrase = Self.strong
            let seen = StateRecorder(restore)
            restore.submit()
            await restore.pending?.value
            guard case .restored(let summary) = restore.state else {
                Issue.record("expected a restore, got \(restore.state)")
                return
            }
            // What the screen showed on the way, seen through observation.
            #expect(seen.states.contains(.restoring), "\(seen.states)")
            #expect(seen.states.contains { if case .syncing = $0 { true } else { false } }, "\(seen.states)")
            let exchange = try #require(summary.exchange)
            #expect(exchange.value == 3_000 && exchange.exchanged >= 1 && exchange.alreadySpent == 0)
            #expect(summary.text.hasPrefix("30.00 EUR exchanged for fresh notes"))
            #expect(restore.passphrase.isEmpty)

            // The app now holds the restored wallet, under a key neither phone had.
            let restored = try #require(app.wallet)
            #expect(restored.publicKey != fresh.publicKey && restored.publicKey != old.wallet.publicKey)
            #expect(summary.newKeyID == restored.publicKey.keyID)
            #expect(app.session?.wallet.publicKey == restored.publicKey && app.syncCount == 1)
            #expect(app.settingsModel !== settingsBefore && app.settingsModel?.restore === restore)
            #expect(try await restored.balance().spendable == 3_000, "exchanged: spendable offline again")
            let home = try #require(app.home)
            home.appear()
            defer { home.disappear() }
            #expect(await untilTrue { home.offlineSpendable == 3_000 })
        }
    }

    @Test func theRestoreSaysWhatTheOldPhoneSpentAfterTheBackup() async throws {
        try await LoopbackIssuer.with { h in
            let (old, oldStore) = try await h.loggedIn("spender", funds: 10_000)
            _ = try await old.purchase(3_000)
            let backupFile = try old.wallet.exportBackup(passphrase: Self.strong, cost: .testing)
            // After the backup the old phone paid Bob, who redeemed: the issuer saw those notes spent.
            let (bob, _) = try await h.loggedIn("bob")
            let request = try bob.wallet.createRequest(amount: 1_000)
            let paid = try old.wallet.pay(request, amount: 1_000)
            _ = try bob.wallet.receive(paid.bundle, for: request.nonce)
            _ = try await bob.sync(refreshWithin: 0)
            let spent = try old.wallet.states(.reserved)
            let spentValue = spent.map(\.amount).reduce(0, +)
            #expect(!spent.isEmpty && spentValue >= 1_000)

            let (fresh, _) = try h.wallet("new-phone")
            let store = MemoryFlowStore()
            let (session, _) = try await WalletSession.logIn(
                wallet: fresh, server: h.baseURL.absoluteString, email: try #require(try oldStore.loadLogin().email),
                password: "correct horse battery", credentials: store, flowState: store)
            let settings = InMemorySettingsStore()
            let app = AppModel(
                settings: settings, connectivity: ManualConnectivity(.offline), scheduler: RecordingScheduler(),
                notifier: RecordingNotifier(), lock: LockModel(gate: NoBiometrics(), settings: settings),
                restoreInto: { h.dir + "/restored-" + UUID().uuidString.prefix(6) }, restoreKeyCost: .testing)
            app.start(wallet: AsyncWallet(fresh), session: session)
            let restore = try #require(app.restore)
            restore.chooseFile(backupFile, name: "b.owbackup")
            restore.passphrase = Self.strong
            await restore.restore()
            guard case .restored(let summary) = restore.state, let exchange = summary.exchange else {
                Issue.record("expected a restore, got \(restore.state)")
                return
            }
            #expect(exchange.alreadySpent == spent.count, "the notes the old phone spent are retired, not exchanged")
            #expect(exchange.value == 3_000 - spentValue)
            let notes = spent.count == 1 ? "1 note" : "\(spent.count) notes"
            #expect(summary.text.contains("\(notes) already spent by the old device."))
            #expect(try await app.wallet?.balance().spendable == 3_000 - spentValue)
        }
    }

    /// An empty wallet whose purchase is unfinished (charged or maybe charged, its notes owned
    /// by this wallet's key not yet here) is not replaced: under a new key those notes could
    /// never be collected.
    @Test func anUnfinishedPurchaseKeepsTheWallet() async throws {
        try await LoopbackIssuer.with { h in
            let (session, store) = try await h.loggedIn("buyer", funds: 10_000)
            let backupFile = try session.wallet.exportBackup(passphrase: Self.strong, cost: .testing)
            try store.updateFlowState { $0.pendingPurchase = PendingPurchase(key: "unfinished", amount: 500) }
            let target = h.dir + "/restored-" + UUID().uuidString.prefix(6)
            let settings = InMemorySettingsStore()
            let app = AppModel(
                settings: settings, connectivity: ManualConnectivity(.offline), scheduler: RecordingScheduler(),
                notifier: RecordingNotifier(), lock: LockModel(gate: NoBiometrics(), settings: settings),
                restoreInto: { target }, restoreKeyCost: .testing)
            app.start(wallet: AsyncWallet(session.wallet), session: session)
            let restore = try #require(app.restore)
            restore.chooseFile(backupFile, name: "b.owbackup")
            restore.passphrase = Self.strong
            await restore.restore()
            #expect(restore.state == .failed(.purchasePending(amount: 500, currency: Currency("EUR"))))
            #expect(!FileManager.default.fileExists(atPath: target) && app.wallet?.publicKey == session.wallet.publicKey)
            #expect(try store.loadFlowState().pendingPurchase == PendingPurchase(key: "unfinished", amount: 500))
        }
    }

    @Test func aWalletThatHoldsAnythingIsNotReplaced() async throws {
        try await LoopbackIssuer.with { h in
            let (session, _) = try await h.loggedIn("holder", funds: 10_000)
            _ = try await session.purchase(1_000)
            let backupFile = try session.wallet.exportBackup(passphrase: Self.strong, cost: .testing)
            let target = h.dir + "/restored-" + UUID().uuidString.prefix(6)
            let settings = InMemorySettingsStore()
            let app = AppModel(
                settings: settings, connectivity: ManualConnectivity(.offline), scheduler: RecordingScheduler(),
                notifier: RecordingNotifier(), lock: LockModel(gate: NoBiometrics(), settings: settings),
                restoreInto: { target }, restoreKeyCost: .testing)
            app.start(wallet: AsyncWallet(session.wallet), session: session)
            let restore = try #require(app.restore)
            restore.chooseFile(backupFile, name: "b.owbackup")
            restore.passphrase = Self.strong
            await restore.restore()
            #expect(restore.state == .failed(.walletNotEmpty(amount: 1_000, currency: Currency("EUR"), pendingPayments: 0)))
            #expect(
                RestoreError.walletNotEmpty(amount: 1_000, currency: Currency("EUR"), pendingPayments: 0).description.contains(
                    "10.00 EUR"))
            #expect(!FileManager.default.fileExists(atPath: target) && app.wallet?.publicKey == session.wallet.publicKey)

            // Without a login there is nothing to exchange the notes with.
            await app.stop()
            await restore.restore()
            #expect(restore.state == .failed(.notLoggedIn))
        }
    }
}
