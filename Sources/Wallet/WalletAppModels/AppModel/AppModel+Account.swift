import Foundation
import WalletCore
import WalletFlows
import WalletSync

/// The account actions the Onboarding and Settings screens need from the app model: they hand
/// over whole steps (finish onboarding, save the server, log out) so the views bind buttons to
/// one call each and never handle the wallet or the session themselves.
extension AppModel {
    /// Onboarding's "Open my wallet": starts the app on the wallet and login onboarding made.
    /// Returns false (and changes nothing) while onboarding is not done.
    @discardableResult
    public func finishOnboarding(_ onboarding: OnboardingModel) -> Bool {
        guard onboarding.step == .done, let result = onboarding.result else { return false }
        start(wallet: result.wallet, session: result.session)
        return true
    }

    /// Onboarding for a new wallet in `walletDirectory`, its key in the app's key store for that
    /// directory (`init`'s `keyStore`; then there is no passphrase step). The composition root
    /// passes a new, empty directory and the stores the app opens wallets with.
    public func makeOnboarding(
        walletDirectory: String, credentials: any CredentialStore, flowState: any FlowStateStore,
        keyCost: PassphraseBox.Cost = .interactive, makeClient: @escaping IssuerClientFactory = { IssuerClient(serverURL: $0) }
    ) -> OnboardingModel {
        OnboardingModel(
            walletDirectory: walletDirectory, credentials: credentials, flowState: flowState, keyCost: keyCost,
            makeClient: makeClient, keyStore: keyStore?(walletDirectory))
    }

    /// "Log in" after a logout or a server change: onboarding's server and account steps for
    /// the wallet this phone already holds (`OnboardingModel(loggingInWith:)`); its "Open my
    /// wallet" (`finishOnboarding`) starts the app on the new login. Nil while no wallet is
    /// open. The composition root passes the stores the app opened the wallet with.
    public func makeLogIn(
        credentials: any CredentialStore, flowState: any FlowStateStore,
        makeClient: @escaping IssuerClientFactory = { IssuerClient(serverURL: $0) }
    ) -> OnboardingModel? {
        guard let wallet else { return nil }
        return OnboardingModel(loggingInWith: wallet, credentials: credentials, flowState: flowState, makeClient: makeClient)
    }

    /// Settings → Server → Save. Another issuer than the saved one ends the login (its token
    /// means nothing there): the session stops, so the screens offer logging in again. Returns
    /// whether the person must log in again; an invalid address sets `settings.error`.
    @discardableResult
    public func saveServer(from settings: SettingsModel) async -> Bool {
        guard settings.saveServer() else { return false }
        await stop()
        return true
    }

    /// Settings → Log out: revokes the login at the issuer (when it can be reached) and forgets
    /// it on this device, then stops the session. The wallet and its notes stay: they are the
    /// person's money, paid and received offline without a login. Returns a warning when the
    /// issuer could not be told (the login is forgotten here anyway), nil otherwise.
    @discardableResult
    public func logOut() async -> String? {
        guard let session else { return nil }
        var warning: String?
        do {
            let logout = try await WalletSession.logOut(credentials: session.credentials)
            warning = logout.warning.map {
                localized(
                    "settings.logOutNotTold",
                    "Logged out here, but the issuer could not be told (%@); the login is forgotten on this device.", $0)
            }
        } catch {
            warning = localized(
                "settings.logOutFailed", "The saved login could not be removed (%@). Try again.", ErrorText.message(error))
            return warning
        }
        await stop()
        return warning
    }
}

extension OnboardingModel {
    /// The header of the current step: "Step 1 of 3 · Server" (of 2 without a wallet step:
    /// logging in again, or a key in a key store).
    public var stepCaption: String {
        let count = String(hasWalletStep ? 3 : 2)
        switch step {
        case .server: return localized("onboarding.stepServer", "Step 1 of %@ · Server", count)
        case .account: return localized("onboarding.stepAccount", "Step 2 of %@ · Account", count)
        case .wallet: return localized("onboarding.stepWallet", "Step 3 of %@ · Wallet", count)
        case .done:
            return isLoggingInAgain ? localized("onboarding.loggedIn", "Logged in") : localized("onboarding.done", "Done")
        }
    }
}
