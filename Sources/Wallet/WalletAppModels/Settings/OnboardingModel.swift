import Foundation
import Observation
import WalletCore
import WalletFlows
import WalletSync

/// Why onboarding could not go on, in words that say what to do.
public enum OnboardingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server field is not an http(s) URL with a host.
    case invalidServer(String)
    /// No answer from the server (wrong address, no network, server down).
    case serverUnreachable(String)
    /// Registering: an account with this email exists.
    case emailTaken
    /// Logging in: the issuer does not know this email and password.
    case wrongPassword
    /// The email is not an address.
    case invalidEmail
    /// The account password is shorter than the issuer accepts.
    case passwordTooShort(minimum: Int)
    /// The optional wallet passphrase is too short to protect the key.
    case weakPassphrase(minimum: Int)
    /// The two passphrase fields differ.
    case passphraseMismatch
    /// Anything else the issuer or the wallet said.
    case failed(String)

    public var description: String {
        switch self {
        case .invalidServer(let text):
            localized(
                "onboarding.invalidServer", "'%@' is not a server address; enter one like https://issuer.example.com.", text)
        case .serverUnreachable(let reason):
            localized(
                "onboarding.serverUnreachable",
                "Cannot reach the server (%@). Check the address and your network, then try again.",
                reason)
        case .emailTaken:
            localized("onboarding.emailTaken", "An account with this email exists. Log in instead, or use another email.")
        case .wrongPassword: localized("onboarding.wrongPassword", "Wrong email or password. Check both and try again.")
        case .invalidEmail: localized("onboarding.invalidEmail", "Enter an email address like name@example.com.")
        case .passwordTooShort(let minimum):
            localized(
                "onboarding.passwordTooShort", "The password needs at least %@.",
                localized("onboarding.characters", count: minimum, one: "%lld character", other: "%lld characters"))
        case .weakPassphrase(let minimum):
            localized(
                "onboarding.passphraseTooShort", "The passphrase needs at least %@, or leave it empty.",
                localized("onboarding.characters", count: minimum, one: "%lld character", other: "%lld characters"))
        case .passphraseMismatch:
            localized("onboarding.passphraseMismatch", "The two passphrases differ; type the same passphrase twice.")
        case .failed(let reason): reason
        }
    }

    /// Maps an issuer or wallet error to what the person can act on.
    static func from(_ error: any Error) -> OnboardingError {
        if let error = error as? OnboardingError { return error }
        if let error = error as? IssuerClientError {
            if error.isUnreachable { return .serverUnreachable(ErrorText.message(error)) }
            switch error.code {
            case "email_taken": return .emailTaken
            case "bad_credentials": return .wrongPassword
            default: return .failed(ErrorText.message(error))
            }
        }
        if let error = error as? WalletFlowError, case .invalidServer(let text) = error { return .invalidServer(text) }
        return .failed(ErrorText.message(error))
    }
}

/// Onboarding: choose the server, register or log in, create the wallet (optional passphrase,
/// typed twice; no such step when the key goes to a key store: `hasWalletStep`), done. Each
/// step checks what it can with the issuer before moving on, so an unreachable server, a taken
/// email or a wrong password is shown on the step that caused it.
/// The wallet is created off the main actor (`AsyncWallet`), gets the issuer's trust, and is
/// logged in through `WalletSession.logIn`, which registers its key to the account.
@Observable @MainActor
public final class OnboardingModel: FocusableForm {
    /// The screens, in order.
    public enum Step: Equatable, Sendable {
        case server
        case account
        case wallet
        case done
    }

    /// Register a new account or log in to an existing one.
    public enum Mode: Equatable, Sendable {
        case register
        case logIn
    }

    /// Every text field of onboarding; each step's focus chain holds its own.
    public enum Field: Hashable, Sendable {
        case server, email, password, passphrase, passphraseConfirmation
    }

    /// What is running now (the progress line under the button).
    public enum Activity: Equatable, Sendable {
        case checkingServer
        case checkingAccount
        case creatingWallet
        case registeringWallet

        public var label: String {
            switch self {
            case .checkingServer: localized("onboarding.checkingServer", "Contacting the server…")
            case .checkingAccount: localized("onboarding.checkingAccount", "Checking your account…")
            case .creatingWallet: localized("onboarding.creatingWallet", "Creating your wallet…")
            case .registeringWallet: localized("onboarding.registeringWallet", "Registering your wallet with the issuer…")
            }
        }
    }

    /// Shortest account password the issuer accepts.
    public static let minimumPasswordLength = 10
    /// Shortest non-empty wallet passphrase accepted.
    public static let minimumPassphraseLength = 8

    public private(set) var step: Step = .server
    public var mode: Mode = .register
    public var server = ""
    public var email = ""
    public var password = ""
    /// Optional: empty leaves the wallet key unencrypted at rest (protected by the device).
    public var passphrase = ""
    public var passphraseConfirmation = ""
    public var focus = FormFocus<Field>([.server], initial: .server)
    /// Non-nil while a step talks to the server or creates the wallet.
    public private(set) var activity: Activity?
    /// The last error, shown on the current step; cleared when the step is submitted again.
    public private(set) var error: OnboardingError?
    /// After `.done`: the wallet and its logged-in session, for `AppModel.start`.
    public private(set) var result: (wallet: AsyncWallet, session: WalletSession)?

    private let walletDirectory: String
    private let keyCost: PassphraseBox.Cost
    private let credentials: any CredentialStore
    private let flowState: any FlowStateStore
    private let makeClient: IssuerClientFactory
    /// Created by an earlier attempt whose login failed: reused, never created twice. (The
    /// phone's wallet when logging in again.)
    private var created: AsyncWallet?
    /// Logging in again with the wallet this phone holds: no wallet step.
    public let isLoggingInAgain: Bool
    /// Where the new wallet's key goes (nil: the wallet directory's key file, which the wallet
    /// step's passphrase seals).
    private let keyStore: (any KeyStore)?
    /// Whether onboarding has the wallet step (choosing the key file's passphrase). Not when
    /// logging in again (the wallet exists), nor when the key goes to a key store (the Secure
    /// Enclave or the Keychain protect it; a passphrase would seal nothing): the account step
    /// then creates the wallet and goes straight to done.
    public var hasWalletStep: Bool { !isLoggingInAgain && keyStore == nil }
    private var task: Task<Void, Never>?

    /// - Parameters:
    ///   - walletDirectory: where the new wallet goes (must not hold a wallet yet).
    ///   - credentials: where the login is saved.
    ///   - flowState: where the session's flow state is saved.
    ///   - keyCost: scrypt cost of the passphrase (tests pass `.testing`).
    ///   - makeClient: makes the issuer client for the server typed (tests inject a transport).
    ///   - keyStore: where the new key goes (the app's Secure Enclave or Keychain store for
    ///     `walletDirectory`, from `AppModel.makeOnboarding`). Nil: the directory's key file,
    ///     sealed with the wallet step's passphrase. With a key store there is no wallet step.
    public init(
        walletDirectory: String, credentials: any CredentialStore, flowState: any FlowStateStore,
        keyCost: PassphraseBox.Cost = .interactive, makeClient: @escaping IssuerClientFactory = { IssuerClient(serverURL: $0) },
        keyStore: (any KeyStore)? = nil
    ) {
        self.keyStore = keyStore
        self.walletDirectory = walletDirectory
        self.credentials = credentials
        self.flowState = flowState
        self.keyCost = keyCost
        self.makeClient = makeClient
        isLoggingInAgain = false
    }

    /// Logging in again with the wallet already on this phone (after a logout or a server
    /// change): server → account → done, the saved server and email filled in, "Log in"
    /// chosen. The wallet keeps its key and notes; the login registers that key to the account.
    public init(
        loggingInWith wallet: AsyncWallet, credentials: any CredentialStore, flowState: any FlowStateStore,
        makeClient: @escaping IssuerClientFactory = { IssuerClient(serverURL: $0) }
    ) {
        walletDirectory = ""
        keyCost = .interactive
        keyStore = nil
        self.credentials = credentials
        self.flowState = flowState
        self.makeClient = makeClient
        created = wallet
        isLoggingInAgain = true
        mode = .logIn
        let saved = try? credentials.loadLogin()
        server = saved?.server ?? ""
        email = saved?.email ?? ""
    }

    /// The first screen appeared: its field gets the keyboard (later steps focus on arrival).
    public func appear() { focus.appear() }

    /// Per-field messages for the current step, shown under the fields while typing.
    public var validationMessages: [Field: String] {
        var out: [Field: String] = [:]
        switch step {
        case .server:
            if !server.isEmpty, Self.url(server) == nil {
                out[.server] = ErrorText.message(OnboardingError.invalidServer(server))
            }
        case .account:
            if !email.isEmpty, !Self.looksLikeEmail(email) { out[.email] = ErrorText.message(OnboardingError.invalidEmail) }
            if !password.isEmpty, password.count < Self.minimumPasswordLength {
                out[.password] = ErrorText.message(OnboardingError.passwordTooShort(minimum: Self.minimumPasswordLength))
            }
        case .wallet:
            if !passphrase.isEmpty, passphrase.count < Self.minimumPassphraseLength {
                out[.passphrase] = ErrorText.message(OnboardingError.weakPassphrase(minimum: Self.minimumPassphraseLength))
            }
            if !passphraseConfirmation.isEmpty, passphraseConfirmation != passphrase {
                out[.passphraseConfirmation] = ErrorText.message(OnboardingError.passphraseMismatch)
            }
        case .done:
            break
        }
        return out
    }

    /// Whether the current step's button is enabled.
    public var canSubmit: Bool {
        guard activity == nil else { return false }
        switch step {
        case .server: return Self.url(server) != nil
        case .account: return Self.looksLikeEmail(email) && password.count >= Self.minimumPasswordLength
        case .wallet:
            // Not `(try? checkedPassphrase()) != nil`: `try?` flattens the optional, so "no
            // passphrase" (nil, allowed) would read as an error and disable the button.
            do { _ = try checkedPassphrase() } catch { return false }
            return true
        case .done: return false
        }
    }

    /// The step's button (and Return on its last field): runs the step in the background.
    public func submit() {
        guard task == nil else { return }
        task = Task { [weak self] in
            await self?.submitStep()
            self?.task = nil
        }
    }

    /// Runs the current step and waits for it (what `submit()` starts; tests call this).
    public func submitStep() async {
        guard activity == nil else { return }
        error = nil
        do {
            switch step {
            case .server: try await checkServer()
            case .account: try await checkAccount()
            case .wallet: try await createWallet()
            case .done: return
            }
        } catch {
            activity = nil
            self.error = OnboardingError.from(error)
        }
    }

    /// Back to the previous step (the wallet already created, if any, is kept for the retry).
    public func back() {
        guard activity == nil else { return }
        error = nil
        switch step {
        case .account: move(to: .server)
        case .wallet: move(to: .account)
        case .server, .done: break
        }
    }

    // MARK: Steps

    private func checkServer() async throws {
        guard let url = Self.url(server) else { throw OnboardingError.invalidServer(server) }
        activity = .checkingServer
        _ = try await makeClient(url).config()
        activity = nil
        move(to: .account)
    }

    /// Registering creates the account now (so a taken email shows here); logging in checks
    /// the password now. The wallet step logs in again with the wallet's key.
    private func checkAccount() async throws {
        guard Self.looksLikeEmail(email) else { throw OnboardingError.invalidEmail }
        guard password.count >= Self.minimumPasswordLength else {
            throw OnboardingError.passwordTooShort(minimum: Self.minimumPasswordLength)
        }
        guard let url = Self.url(server) else { throw OnboardingError.invalidServer(server) }
        activity = .checkingAccount
        let client = makeClient(url)
        if mode == .register {
            try await client.register(email: email, password: password)
            // The account exists now: a retry after a failed login, or going back and forth,
            // logs in instead of registering twice.
            mode = .logIn
        }
        _ = try await client.login(email: email, password: password)
        activity = nil
        // Logging in again: the phone's wallet is registered now; with a key store: no
        // passphrase to choose. Either way there is no wallet step.
        if hasWalletStep { move(to: .wallet) } else { try await createWallet() }
    }

    private func createWallet() async throws {
        let passphrase = keyStore == nil ? try checkedPassphrase() : nil
        let wallet: AsyncWallet
        if let created {
            wallet = created
        } else {
            activity = .creatingWallet
            wallet = try await AsyncWallet.create(
                directory: walletDirectory, passphrase: passphrase, keyCost: keyCost, keyStore: keyStore)
            created = wallet
        }
        activity = .registeringWallet
        let (session, _) = try await WalletSession.logIn(
            wallet: wallet.wallet, server: server.trimmingCharacters(in: .whitespaces), email: email, password: password,
            credentials: credentials, flowState: flowState, makeClient: makeClient)
        result = (wallet, session)
        password = ""
        self.passphrase = ""
        passphraseConfirmation = ""
        activity = nil
        move(to: .done)
    }

    /// The passphrase to create the wallet with (nil: none), or why it cannot be used.
    private func checkedPassphrase() throws(OnboardingError) -> String? {
        if passphrase.isEmpty && passphraseConfirmation.isEmpty { return nil }
        guard passphrase.count >= Self.minimumPassphraseLength else {
            throw .weakPassphrase(minimum: Self.minimumPassphraseLength)
        }
        guard passphrase == passphraseConfirmation else { throw .passphraseMismatch }
        return passphrase
    }

    private func move(to next: Step) {
        step = next
        switch next {
        case .server: focus = FormFocus([.server], initial: .server)
        case .account: focus = FormFocus([.email, .password], initial: .email)
        case .wallet: focus = FormFocus([.passphrase, .passphraseConfirmation], initial: .passphrase)
        case .done: focus = FormFocus([])
        }
        focus.appear()
    }

    // MARK: Field rules

    static func url(_ text: String) -> URL? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { return nil }
        return url
    }

    /// A light check (the issuer has the real rules): one "@" with text either side and a dot after it.
    static func looksLikeEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !text.contains(" ") else { return false }
        let domain = parts[1]
        return domain.contains(".") && !domain.hasPrefix(".") && !domain.hasSuffix(".")
    }
}
