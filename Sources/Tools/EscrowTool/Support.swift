import ArgumentParser
import Ethereum
import EthereumRPC
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Options every command takes.
struct EscrowOptions: ParsableArguments {
    @Option(name: .long, help: "The node's JSON-RPC URL (default: env WALLET_ESCROW_RPC).")
    var rpc: String?

    @Flag(name: .long, help: "Print one JSON object instead of human text (for scripts).")
    var json = false

    /// The node to talk to: --rpc, else WALLET_ESCROW_RPC, else (for one more release, with a
    /// warning on standard error) its earlier name WALLET_CHAIN_RPC.
    func node() throws(EscrowToolError) -> Node {
        let environment = ProcessInfo.processInfo.environment
        var given = rpc ?? environment["WALLET_ESCROW_RPC"]
        if given == nil, let deprecated = environment["WALLET_CHAIN_RPC"] {
            FileHandle.standardError.write(
                Data("WALLET_CHAIN_RPC is deprecated and goes in the next release: use WALLET_ESCROW_RPC.\n".utf8))
            given = deprecated
        }
        guard let text = given, !text.isEmpty else {
            throw .noRPC
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw .invalidRPC(text)
        }
        return Node(client: JSONRPCClient(url: url))
    }
}

/// Exit statuses; `wallet-escrow --help` lists them.
enum Exit: Int32 {
    case failure = 1
    case usage = 2
    /// The blockchain or the escrow refused: a revert, not the owner, too little balance, paused.
    case refused = 3
    /// The node could not be reached, or answered nonsense.
    case node = 4
    /// A transaction was sent but not mined in time.
    case timeout = 5
    /// A key file could not be read or written.
    case keyFile = 9
}

/// Everything the tool refuses or fails at, each saying what happened and what to do.
enum EscrowToolError: Error, CustomStringConvertible {
    case noRPC
    case invalidRPC(String)
    case invalidAmount(String, decimals: Int)
    case amountTooLarge(String)
    case zeroAmount
    case invalidReference(String)
    case invalidAddress(String, EthereumError)
    case keyFileExists(String)
    case keyFile(String, String)
    case key(EthereumError)
    case notOwner(key: String, owner: String, action: String)
    /// `accept-ownership` from a key no offer names (`pending` nil: no offer at all).
    case notPendingOwner(key: String, pending: String?)
    /// A call the escrow is known to refuse, caught before sending (the contract's reason).
    case wouldRevert(action: String, reason: String)
    case paused(String)
    case insufficientBalance(address: String, has: String, needs: String)
    case reverted(action: String, reason: String, transaction: String?)
    case node(String)
    case unexpectedAnswer(String)
    case notMined(action: String, transaction: String, seconds: Int)

    /// A short stable code for `--json` answers.
    var code: String {
        switch self {
        case .noRPC, .invalidRPC: "no_rpc"
        case .invalidAmount, .amountTooLarge, .zeroAmount: "invalid_amount"
        case .invalidReference: "invalid_reference"
        case .invalidAddress: "invalid_address"
        case .keyFileExists: "key_file_exists"
        case .keyFile, .key: "key_file"
        case .notOwner: "not_owner"
        case .notPendingOwner: "not_pending_owner"
        case .wouldRevert: "reverted"
        case .paused: "paused"
        case .insufficientBalance: "insufficient_balance"
        case .reverted: "reverted"
        case .node: "node_unreachable"
        case .unexpectedAnswer: "unexpected_answer"
        case .notMined: "not_mined"
        }
    }

    var exit: Exit {
        switch self {
        case .noRPC, .invalidRPC, .invalidAmount, .amountTooLarge, .zeroAmount, .invalidReference, .invalidAddress: .usage
        case .keyFileExists, .keyFile, .key: .keyFile
        case .notOwner, .notPendingOwner, .wouldRevert, .paused, .insufficientBalance, .reverted: .refused
        case .node, .unexpectedAnswer: .node
        case .notMined: .timeout
        }
    }

    var description: String {
        switch self {
        case .noRPC:
            "No node given: pass --rpc URL (for example http://127.0.0.1:8545) or set WALLET_ESCROW_RPC."
        case .invalidRPC(let text):
            "'\(text)' is not an http(s) URL of a JSON-RPC node (for example http://127.0.0.1:8545)."
        case .invalidAmount(let text, let decimals):
            decimals == 0
                ? "'\(text)' is not an amount of this token (whole units only, for example 12)."
                : "'\(text)' is not an amount of this token (digits with at most \(decimals) after the point, for example 12.\(String((0..<decimals).map { Character(String(($0 + 3) % 10)) })))."
        case .amountTooLarge(let text): "'\(text)' is larger than any amount the tool handles."
        case .zeroAmount: "The amount must be more than 0."
        case .invalidReference(let text):
            "'\(text)' is not an account reference: give the 0x followed by 64 hex digits that `wallet deposit` shows."
        case .invalidAddress(let option, let error): "\(option): \(error)."
        case .keyFileExists(let path):
            "\(path) already exists; it may hold a key that controls money, so it is never overwritten. Choose another file name."
        case .keyFile(let path, let why): "Key file \(path): \(why)."
        case .key(let error): "\(error)."
        case .notOwner(let key, let owner, let action):
            "The key \(key) is not the escrow's owner (\(owner)), so the escrow would refuse to \(action). Use the owner's key file."
        case .notPendingOwner(let key, let pending?):
            "The key \(key) is not the escrow's pending owner: the ownership is offered to \(pending), so only that key can accept it. Use its key file, or have the owner offer it to \(key) with `wallet-escrow transfer-ownership \(key)`."
        case .notPendingOwner(let key, nil):
            "No ownership offer is pending on this escrow, so \(key) has nothing to accept. The owner must first run `wallet-escrow transfer-ownership \(key)`."
        case .wouldRevert(let action, let reason):
            "The escrow would refuse to \(action): \(reason). Nothing was sent."
        case .paused(let escrow):
            "The escrow \(escrow) is paused: it refuses deposits and payouts until its owner runs `wallet-escrow unpause`."
        case .insufficientBalance(let address, let has, let needs):
            "\(address) holds \(has) of the token but this needs \(needs). Fund the address first (or deposit less)."
        case .reverted(let action, let reason, let transaction):
            if let transaction {
                "The blockchain refused to \(action): \(reason) (transaction \(transaction)). Only its gas was spent; fix the cause and try again."
            } else {
                "The blockchain refused to \(action): \(reason). Nothing was sent; fix the cause and try again."
            }
        case .node(let why):
            "The node did not answer as expected (\(why)). Check --rpc / WALLET_ESCROW_RPC and that the node runs."
        case .unexpectedAnswer(let why):
            "The node's answer makes no sense here (\(why)). Is --escrow / --token the right contract?"
        case .notMined(let action, let transaction, let seconds):
            "The transaction to \(action) (\(transaction)) was sent but not mined within \(seconds) s. It may still be mined: check it later with the node (eth_getTransactionReceipt), or raise --timeout."
        }
    }
}

/// Prints results as text for people or as one JSON object for scripts.
struct Output {
    let json: Bool

    func result(_ object: [String: Any], human: String) {
        if json {
            var object = object
            object["ok"] = true
            print(Self.encode(object))
        } else {
            print(human)
        }
    }

    func failure(_ error: EscrowToolError) {
        if json {
            print(
                Self.encode([
                    "ok": false, "error": ["code": error.code, "message": error.description, "exit": Int(error.exit.rawValue)],
                ]))
        } else {
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
        }
    }

    static func encode(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Runs a command body, turning its error into a message and the exit status.
func run(_ options: EscrowOptions, _ body: (Output) async throws(EscrowToolError) -> Void) async throws {
    let output = Output(json: options.json)
    do {
        try await body(output)
    } catch {
        output.failure(error)
        throw ExitCode(error.exit.rawValue)
    }
}

/// Parses an address option (all-lower, all-upper or correctly checksummed; not zero unless
/// `allowZero`).
func parseAddress(_ text: String, option: String, allowZero: Bool = false) throws(EscrowToolError) -> Address {
    do { return try Address(hex: text, allowZero: allowZero) } catch { throw .invalidAddress(option, error) }
}

/// Reads a key file (mode 0600 required by `PrivateKey(hexFile:)`).
func loadKey(_ path: String) throws(EscrowToolError) -> PrivateKey {
    do { return try PrivateKey(hexFile: path) } catch { throw .key(error) }
}
