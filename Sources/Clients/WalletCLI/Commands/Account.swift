import ArgumentParser
import Foundation
import OfflineNotes
import WalletCore
import WalletFlows
import WalletSync

struct Init: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Create a wallet: a new key (encrypted with OW_PASSPHRASE if set; without it stored unencrypted, mode 0600) and an empty database."
    )
    @OptionGroup var common: CommonOptions
    @Option(help: "Issuer URL; the wallet pins its authority key now.") var server: String?
    @OptionGroup var trust: ServerTrustOptions

    func run() async throws {
        try await WalletCLI.run(common) { out in
            let home = common.home
            // A key without its database is a wallet that lost its notes: never a fresh start.
            try home.refuseLostDatabase()
            try home.prepareNew()
            let wallet = try Wallet.create(directory: home.directory, passphrase: WalletHome.passphrase)
            LoginSeal.adopt(wallet, directory: home.directory)
            var config = try home.loadConfig()
            var pinned = false
            if let server {
                guard let url = URL(string: server), url.scheme != nil else {
                    throw CLIError(
                        "invalid_server", "'\(server)' is not a URL (for example http://127.0.0.1:8080).", exit: .usage)
                }
                config.server = server
                _ = try trust.apply(to: &config)
                try home.saveConfig(config)
                do {
                    try await home.clientFactory(config)(url).installTrust(into: wallet)
                } catch {
                    let cause = CLIError.from(error)
                    throw CLIError(
                        cause.code,
                        "Wallet created in \(home.directory), but the issuer was not pinned: \(cause.description) Later: wallet login EMAIL",
                        exit: cause.exit)
                }
                pinned = true
            }
            // Over plain http the authority key came unauthenticated: whoever answered at that
            // address is trusted from now on. Only https (with its certificate check or pin)
            // makes the saved key the issuer's.
            let authenticated = pinned && server.flatMap { URL(string: $0)?.scheme?.lowercased() } == "https"
            let issuerLine =
                !pinned
                ? "  no issuer yet: wallet login\(common.walletArgument) --server URL EMAIL"
                : authenticated
                    ? "  issuer \(server ?? "") pinned (its authority key, fetched over https)"
                    : "  issuer \(server ?? ""): NOT pinned against impostors. Its authority key was fetched over plain http, which is unauthenticated:\n"
                        + "  anyone on the network path could have answered. Use an https:// address for a real issuer."
            out.result(
                [
                    "directory": home.directory, "walletKey": wallet.publicKey.hex, "encrypted": WalletHome.passphrase != nil,
                    "issuerPinned": pinned,
                    "issuerAuthenticated": authenticated,
                ],
                human: """
                    Wallet created in \(home.directory)
                      key \(wallet.publicKey.keyID)\(WalletHome.passphrase != nil ? " (encrypted with OW_PASSPHRASE)" : " (not encrypted: set OW_PASSPHRASE to encrypt keys you create)")
                    \(issuerLine)
                    Next: wallet register\(common.walletArgument) EMAIL  (or wallet login\(common.walletArgument) EMAIL)
                    """)
        }
    }
}

/// Shared by register and login: log in, register the wallet key, save the refresh token.
func logIn(
    _ home: WalletHome, server: String?, trust: ServerTrustOptions, email: String, register: Bool, out: Output
) async throws -> [String: Any] {
    let wallet = try home.openWallet()
    return try await home.withLock {
        let store = home.store
        var config = try home.loadConfig()
        if try trust.apply(to: &config) { try home.saveConfig(config) }
        let saved = try store.loadLogin().server
        guard let serverText = server ?? saved, URL(string: serverText) != nil else {
            throw CLIError("server_required", "Say which issuer: --server URL", exit: .usage)
        }
        let password = try secret(env: "OW_PASSWORD", prompt: "Password for \(email): ")
        let (session, account) = try await WalletSession.logIn(
            wallet: wallet, server: server, email: email, password: password, register: register, credentials: store,
            flowState: store,
            makeClient: try home.clientFactory(config), onRegistered: { out.note("Account \(email) registered.") })
        return [
            "email": email, "accountId": session.accountId, "server": serverText, "balance": account.balance,
            "walletKey": wallet.publicKey.hex,
        ]
    }
}

struct Register: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Open an account with the issuer (password from OW_PASSWORD or asked), log in and register this wallet's key.")
    @OptionGroup var common: CommonOptions
    @Option(help: "Issuer URL (saved).") var server: String?
    @OptionGroup var trust: ServerTrustOptions
    @Argument(help: "Account email.") var email: String

    func run() async throws {
        try await WalletCLI.run(common) { out in
            let info = try await logIn(common.home, server: server, trust: trust, email: email, register: true, out: out)
            out.result(info, human: "Registered and logged in as \(email); this wallet's key is registered to the account.")
        }
    }
}

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Log in (password from OW_PASSWORD or asked) and register this wallet's key to the account.")
    @OptionGroup var common: CommonOptions
    @Option(help: "Issuer URL (saved).") var server: String?
    @OptionGroup var trust: ServerTrustOptions
    @Argument(help: "Account email.") var email: String

    func run() async throws {
        try await WalletCLI.run(common) { out in
            let info = try await logIn(common.home, server: server, trust: trust, email: email, register: false, out: out)
            out.result(info, human: "Logged in as \(email).")
        }
    }
}

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Log out: the issuer revokes the saved login and this wallet forgets it (offline too: then the issuer could not be told)."
    )
    @OptionGroup var common: CommonOptions

    func run() async throws {
        try await WalletCLI.run(common) { out in
            let home = common.home
            _ = try home.openWallet()
            // Revoke first, then forget: forgetting can always be done, the issuer only now.
            let logout = try await WalletSession.logOut(credentials: home.store, makeClient: try home.clientFactory())
            guard logout.wasLoggedIn else {
                out.result(["loggedOut": true, "revoked": false, "wasLoggedIn": false], human: "Not logged in; nothing to do.")
                return
            }
            let revoked = logout.revoked, reason = logout.warning
            var object: [String: Any] = [
                "loggedOut": true, "revoked": revoked, "wasLoggedIn": true, "issuerUnreachable": logout.issuerUnreachable,
            ]
            if let reason { object["warning"] = reason }
            let notTold =
                logout.issuerUnreachable
                ? "\(reason ?? "the issuer could not be reached"), so it was not told"
                : "the issuer could not be told (\(reason ?? "unknown"))"
            out.result(
                object,
                human: revoked
                    ? "Logged out\(logout.email.map { " of \($0)" } ?? ""): the issuer revoked the login and this wallet forgot it."
                    : "Logged out on this device only: the saved login was removed from this wallet, but \(notTold). The login stays valid at the issuer until it expires."
            )
        }
    }
}
