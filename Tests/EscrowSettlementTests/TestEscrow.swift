import EVMTesting
import Ethereum
import EthereumRPC
import Foundation
import TestSupport
import Testing

/// A Token and an Escrow of one test's own, deployed from the committed artefacts
/// (contracts/build) on the local EVM `scripts/with-EVM` runs: owner = spare key 7 (it also
/// mints to itself and deposits), operator = spare key 8. Other suites' deposits never reach
/// this escrow, so its balance is exactly what this test put in, and reconciliation can be
/// checked to the cent. Each test holds the EVM exclusively (`run`): it turns automine off
/// and reverts to snapshots, which would upset any other test's transactions.
struct TestEscrow: Sendable {
    let evm: LocalEVM
    let escrow: Address
    let token: Address
    let chainID: UInt64
    /// The escrow's deployment block.
    let startBlock: UInt64
    let owner = LocalEVM.spareKey(7)
    let `operator` = LocalEVM.spareKey(8)
    var rpc: JSONRPCClient { evm.rpc }

    static var enabled: Bool { LocalEVM.isAvailable }

    /// Runs `body` with a freshly deployed escrow, alone on the EVM; automine is on again
    /// afterwards whatever happened.
    static func run(dailyCap: UInt64 = 1_000_000_000, _ body: @Sendable (TestEscrow) async throws -> Void) async throws {
        try await LocalEVM.exclusive {
            let evm = try LocalEVM.fromEnvironment()
            try await evm.setAutomine(true)
            do {
                try await body(try await deploy(on: evm, dailyCap: dailyCap))
            } catch {
                try? await evm.setAutomine(true)
                throw error
            }
            try await evm.setAutomine(true)
        }
    }

    static func deploy(on evm: LocalEVM, dailyCap: UInt64) async throws -> TestEscrow {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        func bytecode(_ name: String) throws -> [UInt8] {
            try Hex.decode(
                try String(contentsOfFile: root + "/contracts/build/\(name).bin", encoding: .utf8).trimmingCharacters(
                    in: .whitespacesAndNewlines))
        }
        let owner = LocalEVM.spareKey(7)
        func create(_ code: [UInt8]) async throws -> Address {
            let sent = try await evm.send(from: owner, to: nil, data: code, gasLimit: 8_000_000)
            let receipt = try await evm.minedReceipt(sent.hash)
            #expect(receipt.status == 1)
            return try #require(receipt.contractAddress)
        }
        let token = try await create(
            ABI.constructorCallData(
                bytecode: try bytecode("Token"), arguments: [.string("Test Euro"), .string("TEUR"), .uint8(2)]))
        let escrow = try await create(
            ABI.constructorCallData(
                bytecode: try bytecode("Escrow"),
                arguments: [.address(token), .address(LocalEVM.spareKey(8).address), .uint256(dailyCap)]))
        let deployed = TestEscrow(
            evm: evm, escrow: escrow, token: token, chainID: try await evm.rpc.chainID(),
            startBlock: try await evm.rpc.blockNumber())
        try await deployed.execute(
            from: owner, to: token, "mint(address,uint256)", [.address(owner.address), .uint256(UInt64(1_000_000_00))])
        return deployed
    }

    // MARK: Test controls

    func mine(_ blocks: Int = 1) async throws { try await evm.mine(blocks) }
    func snapshot() async throws -> LocalEVM.Snapshot { try await evm.snapshot() }
    func revert(to snapshot: LocalEVM.Snapshot) async throws { #expect(try await evm.revert(to: snapshot)) }
    func setAutomine(_ on: Bool) async throws { try await evm.setAutomine(on) }

    // MARK: Transactions

    /// Sends `function(arguments)` from `key` and expects it mined and successful (automine on).
    func execute(from key: PrivateKey, to: Address, _ function: String, _ arguments: [ABI.Value]) async throws {
        let sent = try await evm.send(
            from: key, to: to, data: try ABI.Function(signature: function).callData(arguments), gasLimit: 300_000)
        #expect(try await evm.minedReceipt(sent.hash).status == 1, "\(function) reverted")
    }

    /// A transaction from `key` with a nonce of the test's choosing (no queue: the test holds the EVM).
    func send(from key: PrivateKey, to: Address, nonce: UInt64) async throws {
        let base = try await rpc.block(.latest).baseFeePerGas ?? 0
        let transaction = EIP1559Transaction(
            chainID: chainID, nonce: nonce, maxPriorityFeePerGas: 1_000_000_000, maxFeePerGas: 2 * base + 1_000_000_000,
            gasLimit: 21_000,
            to: to)
        _ = try await rpc.sendRawTransaction(try transaction.signed(with: key).raw)
    }

    /// Approves the escrow and deposits `amount` token units (a 32-byte word or a UInt64) for `ref`.
    func deposit(_ amount: ABI.Value, ref: [UInt8]) async throws {
        try await execute(from: owner, to: token, "approve(address,uint256)", [.address(escrow), amount])
        try await execute(from: owner, to: escrow, "deposit(uint256,bytes32)", [amount, .bytes32(ref)])
    }

    func deposit(_ amount: UInt64, ref: [UInt8]) async throws { try await deposit(.uint256(amount), ref: ref) }

    func tokenBalance(_ holder: Address) async throws -> UInt64 { try await evm.tokenBalance(token, of: holder) }

    /// Owner: pause or unpause the escrow.
    func setPaused(_ paused: Bool) async throws {
        try await execute(from: owner, to: escrow, paused ? "pause()" : "unpause()", [])
    }

    /// The escrow's Payout events for a withdrawal id, over the escrow's life.
    func payouts(of withdrawalID: [UInt8]) async throws -> [Log] {
        try await rpc.logs(
            address: escrow, topics: [ABI.eventTopic("Payout(bytes32,address,uint256)"), withdrawalID], from: startBlock,
            to: try await rpc.blockNumber())
    }
}
