import ArgumentParser
import EscrowSettlement
import Ethereum
import EthereumRPC
import Foundation
import IssuerCore
import Logging

/// Escrow mode (docs/server.md, "Escrow settlement"): deposits and withdrawals through an
/// ERC-20 escrow on an EVM network. Off unless --escrow-rpc (or its variable) is given.
///
/// The options' earlier spellings (`--chain-*`, `WALLET_SERVER_CHAIN_*`) still work for one
/// release, hidden from the help: each use is logged as a warning naming its replacement, and
/// giving one setting both ways is refused rather than guessed.
struct EscrowOptions: ParsableArguments {
    @Option(
        help:
            "Settle on an EVM network through this JSON-RPC node, e.g. http://127.0.0.1:8545 (env WALLET_SERVER_ESCROW_RPC). Needs --escrow-address and --escrow-operator-key."
    )
    var escrowRpc: String?

    @Option(help: "Address of the escrow contract (env WALLET_SERVER_ESCROW_ADDRESS).")
    var escrowAddress: String?

    @Option(
        help: "File holding the escrow operator's private key, 64 hex digits, mode 0600 (env WALLET_SERVER_ESCROW_OPERATOR_KEY).")
    var escrowOperatorKey: String?

    @Option(
        help:
            "Confirmations before a deposit is credited or a payout settled; a block with k blocks on top of it has k+1 (default: 12)."
    )
    var escrowConfirmations: Int?

    @Option(
        help:
            "Block where the first deposit scan starts (the escrow's deployment block); ignored once the database has scanned (default: 0)."
    )
    var escrowStartBlock: UInt64?

    @Option(help: "Seconds between passes over the EVM: deposits, payouts (default: 2).")
    var escrowPoll: Double?

    @Option(name: .customLong("chain-rpc"), help: .hidden) var deprecatedRpc: String?
    @Option(name: .customLong("chain-escrow"), help: .hidden) var deprecatedAddress: String?
    @Option(name: .customLong("chain-operator-key"), help: .hidden) var deprecatedOperatorKey: String?
    @Option(name: .customLong("chain-confirmations"), help: .hidden) var deprecatedConfirmations: Int?
    @Option(name: .customLong("chain-start-block"), help: .hidden) var deprecatedStartBlock: UInt64?
    @Option(name: .customLong("chain-poll"), help: .hidden) var deprecatedPoll: Double?

    /// The settings as given, whichever spelling gave them.
    struct Settings {
        var rpc: String?
        var escrow: String?
        var operatorKey: String?
        var confirmations = 12
        var startBlock: UInt64 = 0
        var poll: Double = 2
        /// One line per earlier spelling used, naming its replacement.
        var deprecations: [String] = []
    }

    /// Each setting from its option, else its deprecated option, else its variable, else its
    /// deprecated variable. Throws when one setting is given by an option and its deprecated
    /// option both (or by both variables): the two may disagree, and neither is the obvious one.
    func settings(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Settings {
        var result = Settings()
        func pick<T>(_ current: T?, _ deprecated: T?, _ option: String, _ old: String) throws -> T? {
            if current != nil, deprecated != nil {
                throw StartupError("\(old) is the earlier spelling of \(option): give \(option) only.")
            }
            if deprecated != nil {
                result.deprecations.append("\(old) is deprecated and goes in the next release: use \(option).")
            }
            return current ?? deprecated
        }
        func variable(_ name: String, _ old: String) throws -> String? {
            try pick(environment[name], environment[old], name, old)
        }
        result.rpc = try pick(escrowRpc, deprecatedRpc, "--escrow-rpc", "--chain-rpc")
        result.escrow = try pick(escrowAddress, deprecatedAddress, "--escrow-address", "--chain-escrow")
        result.operatorKey = try pick(escrowOperatorKey, deprecatedOperatorKey, "--escrow-operator-key", "--chain-operator-key")
        result.rpc = try result.rpc ?? variable("WALLET_SERVER_ESCROW_RPC", "WALLET_SERVER_CHAIN_RPC")
        result.escrow = try result.escrow ?? variable("WALLET_SERVER_ESCROW_ADDRESS", "WALLET_SERVER_CHAIN_ESCROW")
        result.operatorKey =
            try result.operatorKey ?? variable("WALLET_SERVER_ESCROW_OPERATOR_KEY", "WALLET_SERVER_CHAIN_OPERATOR_KEY")
        if let n = try pick(escrowConfirmations, deprecatedConfirmations, "--escrow-confirmations", "--chain-confirmations") {
            result.confirmations = n
        }
        if let n = try pick(escrowStartBlock, deprecatedStartBlock, "--escrow-start-block", "--chain-start-block") {
            result.startBlock = n
        }
        if let n = try pick(escrowPoll, deprecatedPoll, "--escrow-poll", "--chain-poll") { result.poll = n }
        return result
    }

    /// Nil without --escrow-rpc; else the connected, checked settlement, or a StartupError that
    /// says what to fix.
    func connect(issuer: Issuer, devFunding: Bool, logger: Logger) async throws -> EscrowSettlement? {
        let given = try settings()
        for line in given.deprecations { logger.warning("\(line)") }
        guard let rpc = given.rpc else {
            if given.escrow != nil || given.operatorKey != nil {
                throw StartupError(
                    "--escrow-address and --escrow-operator-key need --escrow-rpc (env WALLET_SERVER_ESCROW_RPC), the EVM node to settle through."
                )
            }
            return nil
        }
        guard !devFunding else {
            throw StartupError(
                "--dev-funding cannot be used with --escrow-rpc: in escrow mode money enters only through the escrow, and funding from nowhere would make reconciliation meaningless. Drop --dev-funding (env WALLET_SERVER_DEV_FUNDING)."
            )
        }
        guard let url = URL(string: rpc), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw StartupError("--escrow-rpc \(rpc) is not an http(s) URL such as http://127.0.0.1:8545.")
        }
        guard let escrowText = given.escrow else {
            throw StartupError(
                "escrow mode needs --escrow-address (env WALLET_SERVER_ESCROW_ADDRESS): the escrow contract's address.")
        }
        guard let keyPath = given.operatorKey else {
            throw StartupError(
                "escrow mode needs --escrow-operator-key (env WALLET_SERVER_ESCROW_OPERATOR_KEY): the file with the escrow operator's key (`wallet-escrow new-key FILE` makes one)."
            )
        }
        guard given.poll > 0, given.poll <= 3_600 else {
            throw StartupError("--escrow-poll must be a number of seconds above 0 and at most 3600.")
        }
        let escrow: Address
        do { escrow = try Address(hex: escrowText) } catch { throw StartupError("--escrow-address: \(error).") }
        let key: PrivateKey
        do { key = try PrivateKey(hexFile: keyPath) } catch { throw StartupError("--escrow-operator-key: \(error).") }
        do {
            return try await EscrowSettlement.connect(
                rpc: JSONRPCClient(url: url), escrow: escrow, operatorKey: key, confirmations: given.confirmations,
                startBlock: given.startBlock, poll: .milliseconds(Int64(given.poll * 1_000)), issuer: issuer, logger: logger)
        } catch {
            throw StartupError("escrow mode: \(error)")
        }
    }
}
