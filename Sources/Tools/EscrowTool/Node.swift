import Ethereum
import EthereumRPC
import Foundation

/// Call data for a function by its canonical signature.
enum Call {
    static func encode(_ signature: String, _ arguments: [ABI.Value]) throws(EscrowToolError) -> [UInt8] {
        do { return try ABI.Function(signature: signature).callData(arguments) } catch {
            throw .unexpectedAnswer("cannot encode \(signature): \(error)")
        }
    }
}

/// EIP-1559 fees for the transactions of one command.
struct Fees {
    var maxPriorityFeePerGas: UInt128
    var maxFeePerGas: UInt128
}

/// The node, as this tool uses it: views through eth_call, and transactions signed here with a
/// key file, sent raw, and waited for.
struct Node: Sendable {
    let client: JSONRPCClient

    /// Priority fee when the node has no eth_maxPriorityFeePerGas: 1 gwei.
    static let fallbackPriorityFee: UInt128 = 1_000_000_000
    /// Gas limits are the node's estimate plus a fifth, for state that changes before mining.
    static func padded(_ estimate: UInt64) -> UInt64 { estimate + estimate / 5 }

    func chainID() async throws(EscrowToolError) -> UInt64 {
        do { return try await client.chainID() } catch { throw Self.map(error) }
    }

    func head() async throws(EscrowToolError) -> UInt64 {
        do { return try await client.blockNumber() } catch { throw Self.map(error) }
    }

    /// The latest block's timestamp (seconds since 1970, UTC): "now" as the escrow sees it.
    func headTime() async throws(EscrowToolError) -> UInt64 {
        do { return try await client.block(.latest).timestamp } catch { throw Self.map(error) }
    }

    /// One 32-byte word returned by a view function.
    func read(_ contract: Address, _ signature: String, _ arguments: [ABI.Value] = []) async throws(EscrowToolError) -> [UInt8] {
        let data = try Call.encode(signature, arguments)
        let answer: [UInt8]
        do { answer = try await client.call(to: contract, data: data, block: .latest) } catch {
            // A view that reverts: the address holds another contract (or none that has it).
            if error.isRevert { throw .unexpectedAnswer("\(signature) reverted on \(contract.checksummed)") }
            throw Self.map(error)
        }
        guard answer.count >= 32 else {
            throw .unexpectedAnswer(
                "\(signature) on \(contract.checksummed) returned \(answer.count) bytes, not a 32-byte word (no contract there?)")
        }
        return Array(answer.prefix(32))
    }

    func readAddress(_ contract: Address, _ signature: String) async throws(EscrowToolError) -> Address {
        let word = try await read(contract, signature)
        do { return try ABI.decodeAddress(word) } catch {
            throw .unexpectedAnswer("\(signature) on \(contract.checksummed): \(error)")
        }
    }

    func readBool(_ contract: Address, _ signature: String) async throws(EscrowToolError) -> Bool {
        let word = try await read(contract, signature)
        do { return try ABI.decodeBool(word) } catch {
            throw .unexpectedAnswer("\(signature) on \(contract.checksummed): \(error)")
        }
    }

    /// The token's decimals (at most 77: more digits than a uint256 has would be nonsense).
    func decimals(token: Address) async throws(EscrowToolError) -> Int {
        let word = try await read(token, "decimals()")
        guard let value = TokenAmount.units(word: word), value <= 77 else {
            throw .unexpectedAnswer("decimals() on \(token.checksummed) is not a number of decimals")
        }
        return Int(value)
    }

    func tokenBalance(token: Address, of holder: Address) async throws(EscrowToolError) -> [UInt8] {
        try await read(token, "balanceOf(address)", [.address(holder)])
    }

    /// The next nonce of `address`, counting its transactions still waiting to be mined.
    func nonce(of address: Address) async throws(EscrowToolError) -> UInt64 {
        do { return try await client.transactionCount(address, .pending) } catch { throw Self.map(error) }
    }

    /// Priority fee from eth_maxPriorityFeePerGas (1 gwei if the node has none); max fee
    /// 2 × the latest base fee + priority, which survives six full blocks of base fee rises.
    func fees() async throws(EscrowToolError) -> Fees {
        let priority = (try? await client.maxPriorityFeePerGas()) ?? Self.fallbackPriorityFee
        let baseFee: UInt128
        do { baseFee = try await client.block(.latest).baseFeePerGas ?? 0 } catch { throw Self.map(error) }
        return Fees(maxPriorityFeePerGas: priority, maxFeePerGas: 2 * baseFee + priority)
    }

    /// Signs and sends a call; returns its hash. The gas limit is the node's estimate × 1.2
    /// unless given; an estimate the node refuses with a revert is the blockchain refusing `action`.
    func send(
        from key: PrivateKey, to contract: Address, data: [UInt8], action: String, nonce: UInt64, fees: Fees,
        gasLimit: UInt64? = nil
    ) async throws(EscrowToolError) -> [UInt8] {
        let chainID = try await chainID()
        let gas: UInt64
        if let gasLimit {
            gas = gasLimit
        } else {
            do { gas = Self.padded(try await client.estimateGas(from: key.address, to: contract, data: data)) } catch {
                throw Self.map(error, action: action)
            }
        }
        let transaction = EIP1559Transaction(
            chainID: chainID, nonce: nonce, maxPriorityFeePerGas: fees.maxPriorityFeePerGas, maxFeePerGas: fees.maxFeePerGas,
            gasLimit: gas, to: contract, value: 0, data: data)
        let signed: SignedTransaction
        do { signed = try transaction.signed(with: key) } catch { throw .key(error) }
        do { return try await client.sendRawTransaction(signed.raw) } catch { throw Self.map(error, action: action) }
    }

    /// Waits until the transaction is mined and returns its block; a mined revert is the
    /// blockchain refusing `action`.
    func waitForReceipt(_ hash: [UInt8], action: String, timeout: Int) async throws(EscrowToolError) -> UInt64 {
        try await waitForSuccess(hash, action: action, timeout: timeout).blockNumber
    }

    /// Waits until the transaction is mined and returns its receipt (with its logs); a mined
    /// revert is the blockchain refusing `action`.
    func waitForSuccess(_ hash: [UInt8], action: String, timeout: Int) async throws(EscrowToolError) -> Receipt {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var pause = Duration.milliseconds(20)
        while true {
            let receipt: Receipt?
            do { receipt = try await client.receipt(hash) } catch { throw Self.map(error) }
            if let receipt {
                guard receipt.succeeded else {
                    throw .reverted(
                        action: action, reason: "the transaction was mined in block \(receipt.blockNumber) but reverted",
                        transaction: Hex.encode(hash))
                }
                return receipt
            }
            guard ContinuousClock.now < deadline else {
                throw .notMined(action: action, transaction: Hex.encode(hash), seconds: timeout)
            }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(500))
        }
    }

    /// A node error as the tool reports it: a revert (with the contract's reason) when the node
    /// says so and an action was being attempted, otherwise the node failing.
    static func map(_ error: RPCError, action: String? = nil) -> EscrowToolError {
        if case .server(_, let message) = error, let action, error.isRevert {
            return .reverted(action: action, reason: message, transaction: nil)
        }
        if case .server(_, let message) = error, let action {
            return .reverted(action: action, reason: "the node refused it: \(message)", transaction: nil)
        }
        return .node("\(error)")
    }
}

/// The escrow's views.
struct EscrowView {
    let address: Address
    let node: Node

    func token() async throws(EscrowToolError) -> Address { try await node.readAddress(address, "token()") }
    func owner() async throws(EscrowToolError) -> Address { try await node.readAddress(address, "owner()") }
    func operatorAddress() async throws(EscrowToolError) -> Address { try await node.readAddress(address, "operator()") }
    func paused() async throws(EscrowToolError) -> Bool { try await node.readBool(address, "paused()") }
    /// The cap raise still waiting (`cap` in force from `at`, seconds since 1970 UTC), or nil.
    /// A raise stays stored in next_daily_cap(_at) after its time has come (no event then), so
    /// it counts as waiting only while its time is ahead of the latest block's.
    func scheduledRaise() async throws(EscrowToolError) -> (cap: [UInt8], at: UInt64)? {
        let cap = try await node.read(address, "next_daily_cap()")
        let atWord = try await node.read(address, "next_daily_cap_at()")
        let now = try await node.headTime()
        // A time beyond UInt64 seconds is as good as never; show it as far future, not none.
        let at = TokenAmount.units(word: atWord).flatMap { UInt64(exactly: $0) } ?? UInt64.max
        return at > now ? (cap, at) : nil
    }

    /// The address offered the owner role (zero: no offer).
    func pendingOwner() async throws(EscrowToolError) -> Address { try await node.readAddress(address, "pending_owner()") }
}

/// Key files as `new-key` creates them.
enum KeyFile {
    /// A fresh key written to a new 0600 file; an existing file is never overwritten.
    static func create(_ path: String) throws(EscrowToolError) -> PrivateKey {
        if FileManager.default.fileExists(atPath: path) { throw .keyFileExists(path) }
        let key = PrivateKey.generate()
        do { try key.writeHexFile(path) } catch {
            // Created by someone else between the check and the create (O_EXCL refused it).
            if case .keyFile(_, let reason) = error, reason.hasPrefix("cannot create"),
                FileManager.default.fileExists(atPath: path)
            {
                throw .keyFileExists(path)
            }
            throw .key(error)
        }
        return key
    }
}
