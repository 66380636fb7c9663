import Foundation
import Observation
import OfflineNotes
import WalletCore
import WalletFlows

/// Settings → Back up: a passphrase typed twice (passphrase → confirmation → Back up), checked
/// with the command line's rule (`PassphrasePolicy`), then the whole wallet encrypted with it
/// (`Wallet.exportBackup`, off the main actor) and written where the person chooses.
@Observable
@MainActor
public final class BackupModel: FocusableForm {
    public enum Field: CaseIterable, Hashable, Sendable { case passphrase, confirmation }

    public enum State: Equatable, Sendable {
        case editing
        /// scrypt and AES-GCM over the wallet's snapshot (a moment).
        case encrypting
        /// Handed to the destination (the document exporter is up).
        case writing
        /// Saved: its size and where it went.
        case done(bytes: Int, location: String)
        /// Nothing was saved; the message says why and what to do.
        case failed(String)
    }

    public var focus = FormFocus<Field>(initial: .passphrase)
    public var passphrase = ""
    public var confirmation = ""
    public private(set) var state: State = .editing
    /// The backup started by `submit()` (Return on the confirmation), for whoever waits for it.
    @ObservationIgnored public private(set) var pending: Task<Void, Never>?

    private let wallet: Wallet
    private let email: String?
    private let destination: (any BackupDestination)?
    private let cost: PassphraseBox.Cost
    private let clock: any AppClock

    /// - Parameters:
    ///   - wallet: the wallet backed up.
    ///   - email: the account email, which the passphrase may not be made from.
    ///   - destination: where the backup goes; nil: this device cannot save files.
    ///   - cost: the key derivation's cost (`.interactive`; tests use `.testing`).
    ///   - clock: the app's clock.
    public init(
        wallet: Wallet, email: String?, destination: (any BackupDestination)?, cost: PassphraseBox.Cost = .interactive,
        clock: any AppClock = SystemClock()
    ) {
        self.wallet = wallet
        self.email = email
        self.destination = destination
        self.cost = cost
        self.clock = clock
    }

    /// The sheet appeared: the passphrase field takes focus.
    public func appear() { focus.appear() }

    /// What is wrong with the passphrases as typed (shown under the fields); nil when the
    /// backup can be made, or nothing is typed yet.
    public var problem: String? {
        guard !passphrase.isEmpty else { return nil }
        if let weakness = PassphrasePolicy.weakness(passphrase, email: email) {
            return localized("backup.tooWeak", "This passphrase is too weak: %@.", weakness)
        }
        if !confirmation.isEmpty && confirmation != passphrase {
            return localized("backup.passphrasesDiffer", "The two passphrases differ.")
        }
        return nil
    }

    /// Whether Back up is enabled.
    public var canBackUp: Bool {
        !passphrase.isEmpty && confirmation == passphrase && problem == nil && state != .encrypting && state != .writing
    }

    /// Return on the confirmation and the Back up button.
    public func submit() { pending = Task { await backUp() } }

    /// Encrypts and saves the backup. The passphrases are cleared once it is saved.
    public func backUp() async {
        guard state != .encrypting, state != .writing else { return }
        if passphrase.isEmpty {
            return fail(localized("backup.noPassphrase", "Enter a passphrase for the backup."), focus: .passphrase)
        }
        if let weakness = PassphrasePolicy.weakness(passphrase, email: email) {
            return fail(
                localized("backup.tooWeakNotSaved", "This passphrase is too weak: %@. Nothing was saved.", weakness),
                focus: .passphrase)
        }
        guard confirmation == passphrase else {
            return fail(
                localized(
                    "backup.passphrasesDifferNotSaved",
                    "The two passphrases differ. Type the same passphrase twice; nothing was saved."),
                focus: .confirmation)
        }
        guard let destination else {
            return fail(localized("backup.noDestination", "This device cannot save files; nothing was saved."), focus: nil)
        }
        focus.clearFocus()
        state = .encrypting
        let bytes: [UInt8]
        do {
            bytes = try await AsyncWallet(wallet).exportBackup(passphrase: passphrase, cost: cost)
        } catch {
            return fail(
                localized("backup.exportFailed", "The backup could not be made: %@ Nothing was saved.", ErrorText.message(error)),
                focus: nil)
        }
        state = .writing
        do {
            let location = try await destination.write(bytes, suggestedName: Self.fileName(at: clock.now()))
            passphrase = ""
            confirmation = ""
            state = .done(bytes: bytes.count, location: location)
        } catch {
            fail(ErrorText.message(error), focus: nil)
        }
    }

    /// "Offline Wallet 2026-11-23.owbackup" (UTC day).
    public static func fileName(at time: Timestamp) -> String {
        let days = time / 86_400
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm), no Calendar needed.
        let z = Int64(days) + 719_468
        let era = z / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "Offline Wallet \(y)-\(two(m))-\(two(d)).owbackup"  // not shown: a file name, in every language
    }

    private func fail(_ message: String, focus field: Field?) {
        state = .failed(message)
        if let field { focus.focus(field) }
    }
}
