import ChainTesting
import Ethereum
import EthereumRPC
import Foundation
import TestSupport
import Testing

/// A Token and an Escrow of one test's own, deployed from the committed artefacts
/// (contracts/build) on the local chain `scripts/with-chain` runs: owner = spare key 7 (it also
/// mints to itself and deposits), operator = spare key 8. Other suites' deposits never reach
/// this escrow, so its balance is exactly what this test put in, and reconciliation can be
/// checked to the cent. Each test holds the chain exclusively (`run`): it turns automine off
/// and reverts to snapshots, which would upset any other test's transactions.
struct TestEscrow: Sendable {
    let chain: LocalChain
    let escrow: Address
    let token: Address
    let chainID: UInt64
    /// The escrow's deployment block.
    let startBlock: UInt64
    let owner = LocalChain.spareKey(7)
    let `operator` = LocalChain.spareKey(8)
    var rpc: JSONRPCClient { chain.rpc }

    static var enabled: Bool { LocalChain.isAvailable }

    /// Runs `body` with a freshly deployed escrow, alone on the chain; automine is on again
    /// afterwards whatever happened.
    static func run(dailyCap: UInt64 = 1_000_000_000, _ body: @Sendable (TestEscrow) async throws -> Void) async throws {
        try await LocalChain.exclusive {
            let chain = try LocalChain.fromEnvironment()
            try await chain.setAutomine(true)
            do {
                try await body(try await deploy(on: chain, dailyCap: dailyCap))
            } catch {
                try? await chain.setAutomine(true)
                throw error
            }
            try await chain.setAutomine(true)
        }
    }

    static func deploy(on chain: LocalChain, dailyCap: UInt64) async throws -> TestEscrow {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        func bytecode(_ name: String) throws -> [UInt8] {
            try Hex.decode(
                try String(contentsOfFile: root + "/contracts/build/\(name).bin", encoding: .utf8).trimmingCharacters(
                    in: .whitespacesAndNewlines))
        }
        let owner = LocalChain.spareKey(7)
        func create(_ code: [UInt8]) async throws -> Address {
            let sent = try await chain.send(from: owner, to: nil, data: code, gasLimit: 8_000_000)
            let receipt = try await chain.minedReceipt(sent.hash)
            #expect(receipt.status == 1)
            return try #require(receipt.contractAddress)
        }
        let token = try await create(
            ABI.constructorCallData(
                bytecode: try bytecode("Token"), arguments: [.string("Test Euro"), .string("TEUR"), .uint8(2)]))
        let escrow = try await create(
            ABI.constructorCallData(
                bytecode: try bytecode("Escrow"),
                arguments: [.address(token), .address(LocalChain.spareKey(8).address), .uint256(dailyCap)]))
        let deployed = TestEscrow(
            chain: chain, escrow: escrow, token: token, chainID: try await chain.rpc.chainID(),
            startBlock: try await chain.rpc.blockNumber())
        try await deployed.execute(
            from: owner, to: token, "mint(address,uint256)", [.address(owner.address), .uint256(UInt64(1_000_000_00))])
        return deployed
    }

    // MARK: Test controls

    func mine(_ blocks: Int = 1) async throws { try await chain.mine(blocks) }
    func snapshot() async throws -> LocalChain.Snapshot { try await chain.snapshot() }
    func revert(to snapshot: LocalChain.Snapshot) async throws { #expect(try await chain.revert(to: snapshot)) }
    func setAutomine(_ on: Bool) async throws { try await chain.setAutomine(on) }

    // MARK: Transactions

    /// Sends `function(arguments)` from `key` and expects it mined and successful (automine on).
    func execute(from key: PrivateKey, to: Address, _ function: String, _ arguments: [ABI.Value]) async throws {
        let sent = try await chain.send(
            from: key, to: to, data: try ABI.Function(signature: function).callData(arguments), gasLimit: 300_000)
        #expect(try await chain.minedReceipt(sent.hash).status == 1, "\(function) reverted")
    }

    /// A transaction from `key` with a nonce of the test's choosing (no queue: the test holds the chain).
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

    func tokenBalance(_ holder: Address) async throws -> UInt64 { try await chain.tokenBalance(token, of: holder) }

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
