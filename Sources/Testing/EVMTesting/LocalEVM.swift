import Ethereum
import EthereumRPC
import Foundation

/// The local EVM `scripts/with-evm` starts for a test run (scripts/evm/node.py), read
/// from the environment it exports, with the node's test controls and the funded keys.
///
/// Suites that need it are enabled with `.enabled(if: LocalEVM.isAvailable)`; without
/// OW_TEST_EVM_RPC they are skipped, and OW_REQUIRE_EVM=1 turns that absence into a failure
/// (`LocalEVM.requiredButMissing`), as OW_REQUIRE_POSTGRES does for PostgreSQL.
///
/// The EVM is shared by every test in the process, so tests that change how it runs (automine
/// off, snapshot and revert) hold `exclusive`, and all others hold `shared`; transactions from
/// one key are sent one at a time through `send(from:…)` so parallel tests do not race for nonces.
public struct LocalEVM: Sendable {
    public let url: URL
    public let rpc: JSONRPCClient
    /// The deployed contracts (nil if the environment does not name them).
    public let escrow: Address?
    public let token: Address?
    /// The folder of key files (owner.key, operator.key, user1.key … user4.key).
    public let keysDirectory: String
    /// The escrow's deployment block (0 if not given).
    public let startBlock: UInt64

    private static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// True when OW_TEST_EVM_RPC names a node.
    public static var isAvailable: Bool { !(environment["OW_TEST_EVM_RPC"] ?? "").isEmpty }

    /// True when OW_REQUIRE_EVM=1 but no EVM is configured: CI asked for the EVM tests
    /// and would otherwise pass without running them.
    public static var requiredButMissing: Bool { environment["OW_REQUIRE_EVM"] == "1" && !isAvailable }

    /// The EVM named by the environment (OW_TEST_EVM_RPC, OW_EVM_ESCROW, OW_EVM_TOKEN,
    /// OW_EVM_KEYS, OW_EVM_START_BLOCK).
    public static func fromEnvironment() throws(LocalEVMError) -> LocalEVM {
        let env = environment
        guard let text = env["OW_TEST_EVM_RPC"], !text.isEmpty else {
            throw .notConfigured("OW_TEST_EVM_RPC is not set: run the tests under scripts/with-evm")
        }
        guard let url = URL(string: text) else { throw .notConfigured("OW_TEST_EVM_RPC=\(text) is not a URL") }
        func address(_ name: String) throws(LocalEVMError) -> Address? {
            guard let value = env[name], !value.isEmpty else { return nil }
            do { return try Address(hex: value) } catch { throw .notConfigured("\(name)=\(value): \(error)") }
        }
        return LocalEVM(
            url: url, rpc: JSONRPCClient(url: url, timeout: .seconds(60)),
            escrow: try address("OW_EVM_ESCROW"), token: try address("OW_EVM_TOKEN"),
            keysDirectory: env["OW_EVM_KEYS"] ?? "", startBlock: env["OW_EVM_START_BLOCK"].flatMap { UInt64($0) } ?? 0)
    }

    /// The path of a key file by name: "owner", "operator", "user1" … "user4".
    public func keyFile(_ name: String) -> String { keysDirectory + "/" + name + ".key" }

    /// A funded key by name (see `keyFile`).
    public func key(_ name: String) throws(LocalEVMError) -> PrivateKey {
        guard !keysDirectory.isEmpty else {
            throw .notConfigured("OW_EVM_KEYS is not set: run the tests under scripts/with-evm")
        }
        do { return try PrivateKey(hexFile: keyFile(name)) } catch { throw .notConfigured("\(error)") }
    }

    /// One of the node's genesis-funded keys that with-evm gives no role (keys 1 … 6 are
    /// owner, operator and the four users): 7 … 10, each 1,000,000 ether and no tokens.
    /// EthereumTests send from 9 and 10; other suites should pick 7 or 8, or the user keys.
    public static func spareKey(_ number: UInt8) -> PrivateKey {
        // A wrong number is a mistake in the test itself, so it stops the run (test-only code).
        precondition((7...10).contains(number), "spare keys are 7 … 10, not \(number)")
        guard let key = try? PrivateKey(bytes: [UInt8](repeating: 0, count: 31) + [number]) else {
            preconditionFailure("\(number) is a valid secp256k1 key (1 ≤ k < n)")
        }
        return key
    }

    // MARK: Test controls (anvil/hardhat names)

    /// Mines `count` blocks (empty unless transactions are pending).
    public func mine(_ count: Int = 1) async throws(RPCError) {
        _ = try await rpc.request(method: "evm_mine", params: [.string(Hex.quantity(UInt64(count)))])
    }

    /// Records the EVM's state; `revert(to:)` goes back to it.
    public func snapshot() async throws(RPCError) -> Snapshot {
        Snapshot(id: try await rpc.request(method: "evm_snapshot"))
    }

    /// Goes back to `snapshot`, dropping every later block (as a reorganisation would).
    /// Returns the node's answer (false: unknown snapshot).
    @discardableResult
    public func revert(to snapshot: Snapshot) async throws(RPCError) -> Bool {
        try await rpc.request(method: "evm_revert", params: [snapshot.id]).boolValue ?? false
    }

    /// Automine on: each transaction is mined at once. Off: they wait in the pending block
    /// until `mine`.
    public func setAutomine(_ on: Bool) async throws(RPCError) {
        _ = try await rpc.request(method: "evm_setAutomine", params: [.bool(on)])
    }

    /// An `evm_snapshot` id, opaque.
    public struct Snapshot: Sendable, Equatable {
        public let id: JSON
    }

    // MARK: Transactions

    /// Signs and sends a transaction from `key` with its next (pending) nonce, current fees and
    /// the node's gas estimate (or `gasLimit`), one at a time per sender in this process.
    /// Returns the signed transaction; with automine on it is mined when this returns.
    public func send(
        from key: PrivateKey, to: Address?, value: UInt128 = 0, data: [UInt8] = [], gasLimit: UInt64? = nil
    ) async throws -> SignedTransaction {
        try await SenderQueue.shared.run(key.address) {
            let chainID = try await rpc.chainID()
            let nonce = try await rpc.transactionCount(key.address, .pending)
            let base = try await rpc.block(.latest).baseFeePerGas ?? 0
            let priority: UInt128 = 1_000_000_000
            let gas: UInt64
            if let gasLimit {
                gas = gasLimit
            } else {
                gas = try await rpc.estimateGas(from: key.address, to: to, data: data, value: value) * 6 / 5
            }
            let transaction = EIP1559Transaction(
                chainID: chainID, nonce: nonce, maxPriorityFeePerGas: priority, maxFeePerGas: 2 * base + priority,
                gasLimit: gas, to: to, value: value, data: data)
            let signed = try transaction.signed(with: key)
            _ = try await rpc.sendRawTransaction(signed.raw)
            return signed
        }
    }

    /// The receipt of a transaction the node has mined (automine on), or an error naming it.
    public func minedReceipt(_ hash: [UInt8]) async throws -> Receipt {
        guard let receipt = try await rpc.receipt(hash) else {
            throw LocalEVMError.notMined(Hex.encode(hash))
        }
        return receipt
    }

    /// An ERC-20 balance in token units; a balance over UInt64 is an error.
    public func tokenBalance(_ token: Address, of holder: Address, block: BlockTag = .latest) async throws -> UInt64 {
        let data = try await rpc.call(
            to: token, data: try ABI.Function(signature: "balanceOf(address)").callData([.address(holder)]), block: block)
        return try ABI.decodeUInt64(ABI.word(data, at: 0))
    }

    // MARK: Sharing the EVM between tests

    /// Runs `body` alone on the EVM: no `shared` holder runs meanwhile. For tests that turn
    /// automine off or revert to a snapshot, which would upset any other test's transactions.
    public static func exclusive<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await EVMGate.shared.holding(exclusive: true, body)
    }

    /// Runs `body` alongside other `shared` holders but never during an `exclusive` one.
    public static func shared<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await EVMGate.shared.holding(exclusive: false, body)
    }
}

/// Why a local EVM helper failed.
public enum LocalEVMError: Error, Equatable, Sendable, CustomStringConvertible {
    case notConfigured(String)
    case notMined(String)

    public var description: String {
        switch self {
        case .notConfigured(let why): why
        case .notMined(let hash): "transaction \(hash) has no receipt: is automine off?"
        }
    }
}

/// A readers–writer gate over the shared EVM: many shared holders, or one exclusive holder,
/// in arrival order (a waiting exclusive holder is not starved by later shared ones).
actor EVMGate {
    static let shared = EVMGate()
    private var readers = 0
    private var writer = false
    private var waiting: [(exclusive: Bool, continuation: CheckedContinuation<Void, Never>)] = []

    /// Holders waiting for their turn (tests wait on this instead of sleeping).
    var waitingCount: Int { waiting.count }

    /// Runs `body` holding the gate, released however `body` ends.
    nonisolated func holding<T: Sendable>(exclusive: Bool, _ body: @Sendable () async throws -> T) async throws -> T {
        await lock(exclusive: exclusive)
        do {
            let value = try await body()
            await unlock(exclusive: exclusive)
            return value
        } catch {
            await unlock(exclusive: exclusive)
            throw error
        }
    }

    func lock(exclusive: Bool) async {
        if waiting.isEmpty && !writer && (!exclusive || readers == 0) {
            take(exclusive)
            return
        }
        await withCheckedContinuation { waiting.append((exclusive, $0)) }
    }

    func unlock(exclusive: Bool) {
        if exclusive { writer = false } else { readers -= 1 }
        while let next = waiting.first, !writer, !next.exclusive || readers == 0 {
            waiting.removeFirst()
            take(next.exclusive)
            next.continuation.resume()
            if next.exclusive { break }
        }
    }

    private func take(_ exclusive: Bool) {
        if exclusive { writer = true } else { readers += 1 }
    }
}

/// One sender's transactions one at a time, so "next nonce, sign, send" never interleaves.
actor SenderQueue {
    static let shared = SenderQueue()
    private var busy: Set<Address> = []
    private var waiting: [Address: [CheckedContinuation<Void, Never>]] = [:]

    func run<T: Sendable>(_ sender: Address, _ body: @Sendable () async throws -> T) async throws -> T {
        if busy.contains(sender) {
            await withCheckedContinuation { waiting[sender, default: []].append($0) }
        } else {
            busy.insert(sender)
        }
        defer { release(sender) }
        return try await body()
    }

    private func release(_ sender: Address) {
        if var queue = waiting[sender], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[sender] = queue.isEmpty ? nil : queue
            next.resume()  // ownership passes to the next waiter: `busy` stays set
        } else {
            busy.remove(sender)
        }
    }
}
