import Foundation
import Observation
import OfflineNotes
import WalletCore
import WalletFlows

/// The Settings tab: auto-recharge (persisted in the flow state, which background sync reads),
/// the biometric lock and the appearance (persisted in the settings store), the server, and the
/// wallet info — read from the shared `HomeModel`, so Settings never shows other numbers than
/// the Wallet tab (the original product kept three independent copies). Backup and restore are
/// their own forms: `backup` (passphrase twice, the command line's passphrase rule) and
/// `restore` (set by the app model, which swaps the wallet).
@Observable
@MainActor
public final class SettingsModel: FocusableForm {
    /// The numeric fields and the server, in focus order.
    public enum Field: CaseIterable, Hashable, Sendable { case threshold, target, server }

    /// The stepper ranges, in whole currency units (APP-SCREENS: 10–500 step 10, 50–1000 step 25).
    public static let thresholdRange: ClosedRange<UInt64> = 10...500
    public static let thresholdStep: UInt64 = 10
    public static let targetRange: ClosedRange<UInt64> = 50...1000
    public static let targetStep: UInt64 = 25
    /// The settings-store key of the biometric lock.
    public static let biometricKey = "biometricLock"

    /// The line under the auto-recharge values.
    public enum Preview: Equatable, Sendable {
        case off
        /// Spendable is below the threshold: the next sync buys up to this balance.
        case willRechargeNow(to: UInt64)
        /// Spendable is above the threshold: when it falls below, it is topped up to this.
        case afterRecharge(UInt64)
    }

    /// Why a setting was not saved.
    public enum SettingsError: Error, Equatable, Sendable, CustomStringConvertible {
        /// A value off its stepper's range or step (only a bug in the view or a damaged save).
        case outOfRange(field: Field, range: ClosedRange<UInt64>, step: UInt64)
        case targetNotAboveThreshold
        case targetAboveHoldingLimit(limit: UInt64, currency: Currency)
        case biometricsUnavailable
        case biometricsRefused
        case invalidServer(String)
        case notSaved(String)

        public var description: String {
            switch self {
            case .outOfRange(let field, let range, let step):
                Self.outOfRange(field, String(range.lowerBound), String(range.upperBound), String(step))
            case .targetNotAboveThreshold:
                localized(
                    "settings.targetNotAboveThreshold", "The target must be above the threshold, or nothing would be bought.")
            case .targetAboveHoldingLimit(let limit, let currency):
                localized(
                    "settings.targetAboveHoldingLimit",
                    "The target is above what the wallet may hold offline (%@); choose a lower one.",
                    MoneyText.text(limit, currency: currency))
            case .biometricsUnavailable:
                localized(
                    "settings.biometricsUnavailable",
                    "This device has no Face ID or Touch ID set up; set it up in the system settings first.")
            case .biometricsRefused:
                localized("settings.biometricsRefused", "Authentication did not succeed, so the lock stays off.")
            case .invalidServer(let text):
                localized(
                    "settings.invalidServer", "'%@' is not a server address; enter one like https://wallet.example.com.", text)
            case .notSaved(let why): localized("settings.notSaved", "The setting was not saved: %@", why)
            }
        }

        /// The range sentence for `field`, a whole sentence per field so each language words it.
        private static func outOfRange(_ field: Field, _ lower: String, _ upper: String, _ step: String) -> String {
            switch field {
            case .threshold:
                localized(
                    "settings.thresholdOutOfRange", "The threshold must be between %1$@ and %2$@, in steps of %3$@.", lower,
                    upper, step)
            case .target:
                localized(
                    "settings.targetOutOfRange", "The target must be between %1$@ and %2$@, in steps of %3$@.", lower, upper, step
                )
            case .server:
                localized(
                    "settings.valueOutOfRange", "The value must be between %1$@ and %2$@, in steps of %3$@.", lower, upper, step)
            }
        }
    }

    public let session: WalletSession
    /// The shared home model: the wallet info and the balances the preview uses.
    public let home: HomeModel
    public var focus = FormFocus<Field>()

    public var autoRechargeOn: Bool
    /// Whole currency units.
    public var threshold: UInt64
    public var target: UInt64
    public private(set) var biometricLock: Bool
    public private(set) var appearance: AppearanceSetting
    /// The server field's text (the saved issuer until edited).
    public var serverText: String
    /// The last error, shown under the section it concerns.
    public private(set) var error: SettingsError?
    /// Back up: the passphrase form and the encrypted file written to the destination.
    public let backup: BackupModel
    /// Restore from a backup; nil where the app offers none (set by `AppModel`).
    public var restore: RestoreModel?

    private let settings: any SettingsStore
    private let biometrics: any BiometricGate
    /// Read once: the preview is recomputed on every redraw and must not hit the database.
    private let walletCurrency: Currency?

    /// Loads every persisted value. Without a saved rule: off, 20 and 100.
    /// - Parameters:
    ///   - session: the logged-in session (server, account, auto-recharge rule).
    ///   - home: the home screen's model, whose numbers Settings shows.
    ///   - settings: where the app's preferences are persisted.
    ///   - biometrics: checked before the lock is turned on.
    ///   - backupDestination: where a backup is written (the app's document exporter).
    ///   - backupCost: the backup's key-derivation cost (tests use `.testing`).
    public init(
        session: WalletSession, home: HomeModel, settings: any SettingsStore, biometrics: any BiometricGate,
        backupDestination: (any BackupDestination)? = nil, backupCost: PassphraseBox.Cost = .interactive
    ) {
        self.session = session
        backup = BackupModel(
            wallet: session.wallet, email: try? session.credentials.loadLogin().email, destination: backupDestination,
            cost: backupCost)
        self.home = home
        self.settings = settings
        self.biometrics = biometrics
        let currency = try? session.wallet.limits().currency
        walletCurrency = currency
        let rule = (try? session.flowState.loadFlowState())?.autoRecharge
        autoRechargeOn = rule != nil
        if let rule, let currency {
            threshold = Self.major(rule.threshold, currency)
            target = Self.major(rule.target, currency)
        } else {
            threshold = 20
            target = 100
        }
        biometricLock = settings.string(forKey: Self.biometricKey) == "true"
        appearance = AppearanceSetting.load(from: settings)
        serverText = (try? session.credentials.loadLogin().server) ?? ""
    }

    // MARK: Auto-recharge

    public var currency: Currency? { home.currency ?? walletCurrency }

    /// Steppers: move by one step, clamped to the range.
    public func stepThreshold(up: Bool) {
        threshold = Self.step(threshold, up: up, by: Self.thresholdStep, in: Self.thresholdRange)
    }
    public func stepTarget(up: Bool) { target = Self.step(target, up: up, by: Self.targetStep, in: Self.targetRange) }

    public var preview: Preview {
        guard autoRechargeOn, let c = currency, let t = AmountParser.minorUnits(ofMajor: threshold, currency: c),
            let goal = AmountParser.minorUnits(ofMajor: target, currency: c)
        else { return .off }
        let spendable = home.offlineSpendable
        // The recharge never buys past the risk budget (what applyAutoRecharge does).
        let reachable = min(goal, Amount.sum([spendable, home.riskBudgetLeft]) ?? Amount.max)
        return spendable < t ? .willRechargeNow(to: max(spendable, reachable)) : .afterRecharge(goal)
    }

    /// "Will recharge now" / "After recharge: 100.00 EUR".
    public var previewText: String {
        switch preview {
        case .off: localized("settings.autoRechargeOff", "Auto-recharge is off.")
        case .willRechargeNow: localized("settings.willRechargeNow", "Will recharge now")
        case .afterRecharge(let v):
            localized(
                "settings.afterRecharge", "After recharge: %@", currency.map { MoneyText.text(v, currency: $0) } ?? String(v))
        }
    }

    /// Saves the auto-recharge rule (or its absence) where the flows and background sync read it.
    @discardableResult
    public func saveAutoRecharge() -> Bool {
        do {
            var rule: AutoRechargeRule?
            if autoRechargeOn {
                guard Self.onGrid(threshold, Self.thresholdRange, Self.thresholdStep) else {
                    throw SettingsError.outOfRange(field: .threshold, range: Self.thresholdRange, step: Self.thresholdStep)
                }
                guard Self.onGrid(target, Self.targetRange, Self.targetStep) else {
                    throw SettingsError.outOfRange(field: .target, range: Self.targetRange, step: Self.targetStep)
                }
                let limits = try session.wallet.limits()
                guard let t = AmountParser.minorUnits(ofMajor: threshold, currency: limits.currency),
                    let g = AmountParser.minorUnits(ofMajor: target, currency: limits.currency)
                else { throw SettingsError.notSaved(localized("settings.amountsTooLarge", "the amounts are too large")) }
                do {
                    rule = try AutoRechargeRule(validatingThreshold: t, target: g, maxOfflineHolding: limits.maxOfflineHolding)
                } catch .targetNotAboveThreshold {
                    throw SettingsError.targetNotAboveThreshold
                } catch .aboveHoldingLimit(let limit) {
                    throw SettingsError.targetAboveHoldingLimit(limit: limit, currency: limits.currency)
                }
            }
            try session.flowState.updateFlowState { $0.autoRecharge = rule }
            error = nil
            return true
        } catch let e as SettingsError {
            error = e
        } catch {
            self.error = .notSaved(ErrorText.message(error))
        }
        return false
    }

    /// Return on the last field / Save.
    public func submit() { _ = saveAutoRecharge() }

    // MARK: Biometric lock

    /// Turns the lock on (only after a successful check, so nobody locks themselves out with a
    /// face the device does not know) or off. Returns whether the setting is now `on`.
    @discardableResult
    public func setBiometricLock(_ on: Bool) async -> Bool {
        if on && !biometricLock {
            guard await biometrics.isAvailable else { return fail(.biometricsUnavailable) }
            guard await biometrics.authenticate(reason: localized("settings.biometricReason", "Turn on the biometric lock"))
            else { return fail(.biometricsRefused) }
        }
        do {
            try settings.set(on ? "true" : "false", forKey: Self.biometricKey)
        } catch {
            return fail(.notSaved(ErrorText.message(error)))
        }
        biometricLock = on
        error = nil
        return true
    }

    // MARK: Appearance

    public func setAppearance(_ value: AppearanceSetting) {
        do {
            try value.save(to: settings)
            appearance = value
            error = nil
        } catch {
            self.error = .notSaved(ErrorText.message(error))
        }
    }

    // MARK: Server

    /// Whether the server field holds an http(s) URL with a host; nil when it does.
    public var serverProblem: SettingsError? {
        let text = serverText.trimmingCharacters(in: .whitespaces)
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else { return .invalidServer(text) }
        return nil
    }

    /// Saves the server. Another issuer than the saved one ends the login (its token means
    /// nothing there): returns true when the person must log in again.
    @discardableResult
    public func saveServer() -> Bool {
        if let problem = serverProblem {
            error = problem
            return false
        }
        let text = serverText.trimmingCharacters(in: .whitespaces)
        do {
            var login = try session.credentials.loadLogin()
            guard login.server != text else { return false }
            login.server = text
            login.refreshToken = nil
            login.accountId = nil
            try session.credentials.saveLogin(login)
            error = nil
            return true
        } catch {
            self.error = .notSaved(ErrorText.message(error))
            return false
        }
    }

    // MARK: Wallet info (the shared home model's numbers)

    public var offline: UInt64 { home.offlineTotal }
    public var settled: Int64? { home.settled }
    public var total: UInt64 { home.total }
    public var lastSync: Timestamp? { home.lastSync }
    public var freshness: HomeModel.Freshness { home.freshness }

    // MARK: Helpers

    private func fail(_ e: SettingsError) -> Bool {
        error = e
        return false
    }

    /// One step up or down, landing on the grid (a value saved off it, e.g. by the command
    /// line, snaps to the neighbouring grid point), clamped to the range.
    static func step(_ value: UInt64, up: Bool, by step: UInt64, in range: ClosedRange<UInt64>) -> UInt64 {
        guard value >= range.lowerBound else { return range.lowerBound }
        let offset = value - range.lowerBound
        let below = range.lowerBound + offset / step * step
        let next: UInt64 =
            if up { below + step } else if below < value { below } else {
                below >= range.lowerBound + step ? below - step : range.lowerBound
            }
        return min(range.upperBound, max(range.lowerBound, next))
    }

    /// In the range and on its steps (counted from the range's start).
    static func onGrid(_ value: UInt64, _ range: ClosedRange<UInt64>, _ step: UInt64) -> Bool {
        range.contains(value) && (value - range.lowerBound) % step == 0
    }

    /// Minor units to whole units (rounded down; the steppers hold whole units).
    static func major(_ minor: UInt64, _ currency: Currency) -> UInt64 {
        var divisor: UInt64 = 1
        for _ in 0..<currency.minorUnitDigits { divisor *= 10 }
        return minor / divisor
    }
}
