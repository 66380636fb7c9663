import Foundation
import WalletFlows

// The words the Settings, Back up and Restore screens draw, so the views bind text instead of
// choosing it: the appearance choices, which section an error belongs under, the backup
// passphrase rule and each form's progress line.

extension AppearanceSetting {
    /// "System", "Light", "Dark".
    public var title: String {
        switch self {
        case .system: localized("settings.appearanceSystem", "System")
        case .light: localized("settings.appearanceLight", "Light")
        case .dark: localized("settings.appearanceDark", "Dark")
        }
    }
}

extension SettingsModel {
    /// The parts of the Settings screen an error is shown under.
    public enum Section: Sendable, Equatable {
        case autoRecharge, security, server, general
    }

    /// The error to show under `section` (nil when the last error concerns another one, or
    /// there is none), so a refused biometric lock shows next to its toggle, not at the top.
    public func errorText(for section: Section) -> String? {
        guard let error else { return nil }
        let belongs: Section =
            switch error {
            case .outOfRange, .targetNotAboveThreshold, .targetAboveHoldingLimit: .autoRecharge
            case .biometricsUnavailable, .biometricsRefused: .security
            case .invalidServer: .server
            case .notSaved: .general
            }
        return belongs == section ? ErrorText.message(error) : nil
    }

    /// The threshold, target and preview as VoiceOver reads the whole-unit values ("20 EUR").
    public func wholeUnitsText(_ value: UInt64) -> String {
        currency.map { localized("money.amount", "%1$@ %2$@", String(value), $0.code) } ?? String(value)
    }
}

extension BackupModel {
    /// The passphrase rule under the fields (`PassphrasePolicy`, the command line's rule).
    public static var ruleText: String {
        localized(
            "backup.rule",
            "At least %1$@ with %2$@; under %3$@, mix letters, digits, spaces or symbols. Not a common password, your email or your account password. Without it the backup cannot be opened.",
            characters(PassphrasePolicy.minimumLength),
            localized(
                "backup.differentOnes", count: PassphrasePolicy.minimumDistinct, one: "%lld different one",
                other: "%lld different ones"),
            characters(PassphrasePolicy.mixedBelow))
    }

    /// "12 characters", for the rule.
    private static func characters(_ count: Int) -> String {
        localized("backup.characters", count: count, one: "%lld character", other: "%lld characters")
    }

    /// Whether the backup is being made (the form is disabled, a spinner shows).
    public var isWorking: Bool { state == .encrypting || state == .writing }

    /// The progress or outcome line; nil while editing.
    public var statusText: String? {
        switch state {
        case .editing: nil
        case .encrypting: localized("backup.encrypting", "Encrypting the wallet…")
        case .writing: localized("backup.writing", "Saving the backup…")
        case .done(let bytes, let location):
            localized(
                "backup.saved", "Backup saved (%1$@): %2$@. Keep the passphrase apart from the file.",
                localized("backup.bytes", count: bytes, one: "%lld byte", other: "%lld bytes"), location)
        case .failed(let message): message
        }
    }

    /// Whether the status line is an error.
    public var statusIsError: Bool { if case .failed = state { true } else { false } }
}

extension RestoreModel {
    /// The progress or outcome line; nil while editing.
    public var statusText: String? {
        switch state {
        case .editing: nil
        case .restoring: localized("restore.opening", "Opening the backup under a new key…")
        case .syncing(nil): localized("restore.exchanging", "Exchanging the restored notes…")
        case .syncing(let progress?):
            localized(
                "restore.exchangingStep", "Exchanging the restored notes: step %1$@ of %2$@, %3$@", String(progress.index),
                String(progress.count), SyncText.step(progress.step))
        case .restored(let summary): summary.text
        case .failed(let error): ErrorText.message(error)
        }
    }

    /// Whether the status line is an error.
    public var statusIsError: Bool { if case .failed = state { true } else { false } }
}
