import Foundation
import Observation
import OfflineNotes
import WalletCore
import WalletFlows
import WalletSync

/// Why a restore did not happen. In every case nothing changed: the wallet in use stays.
public enum RestoreError: Error, Equatable, Sendable, CustomStringConvertible {
    case noFile
    /// The file is not a backup, or is damaged.
    case unreadableFile(String)
    /// The passphrase does not open the backup (or the file was altered).
    case wrongPassphrase
    /// This wallet holds money or payments in flight: restoring would put them aside.
    case walletNotEmpty(amount: UInt64, currency: Currency?, pendingPayments: Int)
    /// A purchase was charged or may have been, and its notes (owned by this wallet's key) have
    /// not arrived: a restore under a new key could never collect them.
    case purchasePending(amount: UInt64, currency: Currency?)
    /// Restored notes are exchanged online under the account: log in first.
    case notLoggedIn
    /// The issuer did not take the restored wallet's new key (offline, or refused).
    case keyNotRegistered(String)
    case failed(String)

    public var description: String {
        switch self {
        case .noFile: localized("restore.noFile", "Choose the backup file first.")
        case .unreadableFile(let why):
            localized(
                "restore.unreadableFile",
                "This file cannot be restored: it is not an Offline Wallet backup or it is damaged (%@). Choose the backup file again.",
                why)
        case .wrongPassphrase:
            localized(
                "restore.wrongPassphrase",
                "Wrong passphrase for this backup (or the file was altered). Type the passphrase used when it was made.")
        case .walletNotEmpty(let amount, let currency, let pending):
            localized(
                "restore.walletNotEmpty",
                "This wallet is not empty (%1$@ held, %2$@ waiting for a receipt). Restore only into a new, empty wallet; nothing was changed.",
                Self.money(amount, currency),
                localized("restore.payments", count: pending, one: "%lld payment", other: "%lld payments"))
        case .purchasePending(let amount, let currency):
            localized(
                "restore.purchasePending",
                "A purchase of %@ is not finished. Sync once online to complete it, then restore; nothing was changed.",
                Self.money(amount, currency))
        case .notLoggedIn:
            localized(
                "restore.notLoggedIn", "Log in first: the restored notes are exchanged online for notes of this phone's new key.")
        case .keyNotRegistered(let why):
            localized(
                "restore.keyNotRegistered",
                "The issuer could not be told about the restored wallet (%@). Check the connection and restore again; nothing was changed.",
                why)
        case .failed(let why): localized("restore.failed", "The restore failed: %@ Nothing was changed.", why)
        }
    }

    /// The amount with its currency, or the bare number when the wallet's currency is unknown.
    private static func money(_ amount: UInt64, _ currency: Currency?) -> String {
        currency.map { MoneyText.text(amount, currency: $0) } ?? String(amount)
    }
}

/// What a restore did.
public struct RestoreSummary: Equatable, Sendable {
    /// The restored wallet's new key (the old device's key is never used again).
    public let newKeyID: KeyID
    public let currency: Currency
    /// What the sync after the restore exchanged, found already spent, expired or refused;
    /// nil when that sync did not finish (`syncProblem`): the next sync exchanges them.
    public let exchange: IssuerClient.RestoreExchange?
    public let syncProblem: String?

    public init(newKeyID: KeyID, currency: Currency, exchange: IssuerClient.RestoreExchange?, syncProblem: String?) {
        self.newKeyID = newKeyID
        self.currency = currency
        self.exchange = exchange
        self.syncProblem = syncProblem
    }

    /// The result in words.
    public var text: String {
        guard let e = exchange else {
            return localized(
                "restore.exchangeLater", "Restored under a new key. The restored notes are exchanged at the next sync (%@).",
                syncProblem ?? localized("restore.syncUnfinished", "it did not finish"))
        }
        // Whole sentences, one per outcome that happened, in this order.
        var sentences = [
            localized(
                "restore.exchanged", "%1$@ exchanged for fresh notes (%2$@).", MoneyText.text(e.value, currency: currency),
                Self.notes(e.exchanged))
        ]
        if e.alreadySpent > 0 {
            sentences.append(localized("restore.alreadySpent", "%@ already spent by the old device.", Self.notes(e.alreadySpent)))
        }
        if e.alreadyExchanged > 0 {
            sentences.append(
                localized(
                    "restore.alreadyExchanged", "%@ already exchanged by another restore of this backup.",
                    Self.notes(e.alreadyExchanged)))
        }
        if e.expired > 0 { sentences.append(localized("restore.expired", "%@ expired.", Self.notes(e.expired))) }
        if !e.refused.isEmpty {
            // The issuer's reasons, as it gave them, one after the other.
            sentences.append(
                localized(
                    "restore.refused", "%1$@ refused: %2$@.", Self.notes(e.refused.count),
                    e.refused.joined(separator: "; ")))
        }
        return sentences.joined(separator: " ")
    }

    /// "3 notes".
    private static func notes(_ count: Int) -> String {
        localized("restore.notes", count: count, one: "%lld note", other: "%lld notes")
    }
}

/// Settings → Restore: a backup file and its passphrase; the backup becomes this phone's
/// wallet under a new key (`Wallet.restore`), then one sync exchanges the restored notes for
/// notes of that key, with its progress. Only an empty wallet is replaced; a wrong passphrase,
/// an unreadable file or a wallet that holds anything changes nothing.
@Observable
@MainActor
public final class RestoreModel: FocusableForm {
    public enum Field: CaseIterable, Hashable, Sendable { case passphrase }

    public enum State: Equatable, Sendable {
        case editing
        /// Decrypting the backup and opening it under a new key.
        case restoring
        /// The sync exchanging the restored notes; its step once reported.
        case syncing(SyncProgress?)
        case restored(RestoreSummary)
        case failed(RestoreError)
    }

    public var focus = FormFocus<Field>(initial: .passphrase)
    public var passphrase = ""
    /// The chosen file's name, shown on the form.
    public private(set) var fileName: String?
    /// The restore started by `submit()`, for whoever waits for it.
    @ObservationIgnored public private(set) var pending: Task<Void, Never>?

    private enum Phase: Equatable {
        case editing, restoring, syncing
        case restored(RestoreSummary)
        case failed(RestoreError)
    }
    private var phase: Phase = .editing
    private var file: [UInt8]?
    private weak var app: AppModel?
    private let directory: @Sendable () -> String
    private let keyCost: PassphraseBox.Cost

    init(app: AppModel, directory: @escaping @Sendable () -> String, keyCost: PassphraseBox.Cost) {
        self.app = app
        self.directory = directory
        self.keyCost = keyCost
    }

    public var state: State {
        switch phase {
        case .editing: return .editing
        case .restoring: return .restoring
        case .syncing:
            if case .syncing(let progress)? = app?.syncState { return .syncing(progress) }
            return .syncing(nil)
        case .restored(let summary): return .restored(summary)
        case .failed(let error): return .failed(error)
        }
    }

    public var isBusy: Bool { phase == .restoring || phase == .syncing }

    /// The file the person picked (the app reads it from the document picker).
    public func chooseFile(_ bytes: [UInt8], name: String) {
        guard !isBusy else { return }
        file = bytes
        fileName = name
        phase = .editing
    }

    /// The file at `url`; one that cannot be read is reported at once.
    public func chooseFile(at url: URL) {
        guard !isBusy else { return }
        #if canImport(Darwin)
        // The document picker hands out a security-scoped URL outside the app's sandbox:
        // readable only between these two calls.
        let scoped = url.startAccessingSecurityScopedResource()
        defer { if scoped { url.stopAccessingSecurityScopedResource() } }
        #endif
        guard let data = FileManager.default.contents(atPath: url.path) else {
            file = nil
            fileName = nil
            phase = .failed(.unreadableFile(localized("restore.fileUnreadable", "%@ could not be read", url.lastPathComponent)))
            return
        }
        chooseFile(Array(data), name: url.lastPathComponent)
    }

    /// The document picker could not hand over a file: nothing is chosen, and the form says why.
    public func chooseFileFailed(_ error: any Error) {
        guard !isBusy else { return }
        file = nil
        fileName = nil
        phase = .failed(
            .unreadableFile(localized("restore.fileNotOpened", "the file could not be opened: %@", ErrorText.message(error))))
    }

    /// The document picker's answer (SwiftUI's `fileImporter`): the file chosen, or why none
    /// could be.
    public func chooseFile(_ picked: Result<URL, any Error>) {
        switch picked {
        case .success(let url): chooseFile(at: url)
        case .failure(let error): chooseFileFailed(error)
        }
    }

    /// Whether Restore is enabled: a file chosen, a passphrase typed, nothing running.
    public var canRestore: Bool { file != nil && !passphrase.isEmpty && !isBusy }

    public func appear() { focus.appear() }

    /// Return on the passphrase and the Restore button.
    public func submit() { pending = Task { await restore() } }

    /// Restores the chosen file, then syncs. The passphrase is cleared once restored.
    public func restore() async {
        guard !isBusy else { return }
        guard let file else { return phase = .failed(.noFile) }
        guard !passphrase.isEmpty else {
            focus.focus(.passphrase)
            return phase = .failed(.wrongPassphrase)
        }
        guard let app else { return phase = .failed(.failed(localized("restore.appClosing", "the app is closing."))) }
        focus.clearFocus()
        phase = .restoring
        let restored: (key: KeyID, currency: Currency)
        do {
            restored = try await app.restoreWallet(file, passphrase: passphrase, into: directory(), keyCost: keyCost)
        } catch {
            if error == .wrongPassphrase { focus.focus(.passphrase) }
            return phase = .failed(error)
        }
        passphrase = ""
        phase = .syncing
        let report = await app.sync()
        var problem: String?
        if report == nil, case .failed(let message) = app.syncState { problem = message }
        phase = .restored(
            RestoreSummary(
                newKeyID: restored.key, currency: restored.currency, exchange: report?.restored,
                syncProblem: report == nil ? (problem ?? localized("restore.syncDidNotRun", "the sync did not run")) : nil))
    }
}

extension AppModel {
    /// Replaces this (empty) wallet with the backup, restored under a new key into `directory`
    /// and registered to this login; the screen models are rebuilt on it. Nothing changes when
    /// it throws (a directory it made is removed).
    func restoreWallet(
        _ backup: [UInt8], passphrase: String, into directory: String, keyCost: PassphraseBox.Cost
    )
        async throws(RestoreError) -> (key: KeyID, currency: Currency)
    {
        guard let wallet, let session else { throw .notLoggedIn }
        let contents = await Self.contents(of: wallet.wallet)
        guard let (balance, pending) = contents else {
            throw .failed(localized("restore.walletUnreadable", "this wallet could not be read."))
        }
        guard balance.total == 0, pending == 0 else {
            throw .walletNotEmpty(amount: balance.total, currency: balance.currency, pendingPayments: pending)
        }
        if let purchase = try? session.flowState.loadFlowState().pendingPurchase {
            throw .purchasePending(amount: purchase.amount, currency: balance.currency)
        }
        let existed = FileManager.default.fileExists(atPath: directory)
        let restored: AsyncWallet
        do {
            // The new key goes to the app's key store for the new directory (a new Keychain
            // account: the replaced wallet's key may still be there).
            restored = try await AsyncWallet.restore(
                backup, passphrase: passphrase, into: directory, keyCost: keyCost, keyStore: keyStore?(directory))
        } catch {
            switch error {
            case .wrongPassphrase, .passphraseRequired: throw .wrongPassphrase
            case .corruptFile(let why): throw .unreadableFile(why)
            default: throw .failed(ErrorText.message(error))
            }
        }
        let adopted: WalletSession
        do {
            adopted = try await session.adopting(restored.wallet)
        } catch {
            if !existed { try? FileManager.default.removeItem(atPath: directory) }
            throw .keyNotRegistered(ErrorText.message(error))
        }
        start(wallet: restored, session: adopted)
        return (restored.publicKey.keyID, balance.currency)
    }

    @concurrent
    private nonisolated static func contents(of wallet: Wallet) async -> (Balance, Int)? {
        guard let balance = try? wallet.balance(), let pending = try? wallet.pendingPayments() else { return nil }
        return (balance, pending.count)
    }
}
