import EVMTesting
import Ethereum
import EthereumRPC
import Foundation
import Testing

@Suite struct EVMAvailability {
    @Test func evmRunsWhenRequired() {
        #expect(
            !LocalEVM.requiredButMissing, "OW_REQUIRE_EVM=1 but OW_TEST_EVM_RPC is not set (run under scripts/with-evm)")
    }
}

/// The client against the real local EVM (scripts/with-EVM): py-EVM behind scripts/EVM/node.py.
@Suite(.enabled(if: LocalEVM.isAvailable), .serialized)
struct LocalEVMRPCTests {
    let evm: LocalEVM
    /// Genesis-funded keys no other suite uses (see `LocalEVM.spareKey`).
    let sender = LocalEVM.spareKey(9)
    let other = LocalEVM.spareKey(10)

    init() throws {
        evm = try LocalEVM.fromEnvironment()
    }

    @Test func chainIDAndHead() async throws {
        try await LocalEVM.shared { () async throws in
            let id = try await evm.rpc.chainID()
            if let expected = ProcessInfo.processInfo.environment["OW_EVM_CHAIN_ID"] {
                #expect(String(id) == expected)
            }
            let head = try await evm.rpc.blockNumber()
            #expect(head >= evm.startBlock)
            let block = try await evm.rpc.block(.latest)
            #expect(block.number >= head && block.hash.count == 32 && block.timestamp > 1_700_000_000)
            #expect(block.baseFeePerGas != nil)
            let byNumber = try await evm.rpc.block(.number(block.number))
            #expect(byNumber == block)
        }
    }

    /// A signed EIP-1559 ether transfer is accepted, mined (automine), found by its hash, moves
    /// exactly its value, and the node recovers the same sender we signed with.
    @Test func etherTransferIsMined() async throws {
        try await LocalEVM.shared { () async throws in
            let recipient = PrivateKey.generate().address
            let before = try await evm.rpc.balance(sender.address)
            let signed = try await evm.send(from: sender, to: recipient, value: 12_345, gasLimit: 21_000)
            let receipt = try await evm.minedReceipt(signed.hash)
            #expect(receipt.succeeded && receipt.transactionHash == signed.hash && receipt.gasUsed == 21_000)
            #expect(receipt.from == sender.address && receipt.to == recipient)
            #expect(try await evm.rpc.balance(recipient) == 12_345)
            let fee = UInt128(receipt.gasUsed) * (receipt.effectiveGasPrice ?? 0)
            #expect(try await evm.rpc.balance(sender.address) == before - 12_345 - fee)
            let info = try #require(try await evm.rpc.transaction(signed.hash))
            #expect(
                info.from == sender.address && info.nonce == signed.transaction.nonce && info.blockNumber == receipt.blockNumber)
            // Sending the same bytes again is success with the same hash (how a payout is resubmitted).
            #expect(try await evm.rpc.sendRawTransaction(signed.raw) == signed.hash)
            #expect(try await evm.rpc.balance(recipient) == 12_345)
        }
    }

    /// With automine off a sent transaction is pending: the pending nonce counts it, the
    /// latest does not, it has no receipt; once mined, both agree.
    @Test func pendingAndLatestNonces() async throws {
        try await LocalEVM.exclusive { () async throws in
            try await evm.setAutomine(false)
            do {
                let latest = try await evm.rpc.transactionCount(sender.address, .latest)
                let signed = try await evm.send(from: sender, to: other.address, value: 1, gasLimit: 21_000)
                #expect(signed.transaction.nonce == latest)
                #expect(try await evm.rpc.transactionCount(sender.address, .latest) == latest)
                #expect(try await evm.rpc.transactionCount(sender.address, .pending) == latest + 1)
                #expect(try await evm.rpc.receipt(signed.hash) == nil)
                let pending = try #require(try await evm.rpc.transaction(signed.hash))
                #expect(pending.blockNumber == nil)
                try await evm.mine()
                #expect(try await evm.rpc.receipt(signed.hash)?.succeeded == true)
                #expect(try await evm.rpc.transactionCount(sender.address, .latest) == latest + 1)
                try await evm.setAutomine(true)
            } catch {
                try? await evm.setAutomine(true)
                throw error
            }
        }
    }

    /// A snapshot and revert takes mined blocks back: the receipt disappears, the nonce returns.
    @Test func revertToSnapshotRemovesTheTransaction() async throws {
        try await LocalEVM.exclusive { () async throws in
            let snapshot = try await evm.snapshot()
            let nonce = try await evm.rpc.transactionCount(sender.address, .latest)
            let signed = try await evm.send(from: sender, to: other.address, value: 1, gasLimit: 21_000)
            #expect(try await evm.rpc.receipt(signed.hash) != nil)
            #expect(try await evm.revert(to: snapshot))
            #expect(try await evm.rpc.receipt(signed.hash) == nil)
            #expect(try await evm.rpc.transactionCount(sender.address, .latest) == nonce)
        }
    }

    @Test func tokenBalanceByCallAndTransferLogs() async throws {
        let token = try #require(evm.token, "OW_EVM_TOKEN is not set")
        try await LocalEVM.shared { () async throws in
            let user = try evm.key("user1")
            let balance = try await evm.tokenBalance(token, of: user.address)
            #expect(balance > 0)  // with-evm mints to every user
            #expect(try await evm.tokenBalance(token, of: sender.address) == 0)
            // The mint to user1: Transfer(from 0, to user1, amount), found by topic0 and the indexed "to".
            let transfer = ABI.eventTopic("Transfer(address,address,uint256)")
            let head = try await evm.rpc.blockNumber()
            let logs = try await evm.rpc.logs(
                address: token, topics: [transfer, nil, user.address.word], from: evm.startBlock, to: head)
            let minted = logs.filter { $0.topics.count == 3 && $0.topics[1] == Address.zero.word }
            #expect(minted.count == 1)
            #expect(try minted.first.map { try ABI.decodeUInt64($0.data) } == balance)
            #expect(logs.allSatisfy { $0.address == token && $0.topics[2] == user.address.word && !$0.removed })
            // Another event's topic matches none of them.
            #expect(
                try await evm.rpc.logs(address: token, topics: [ABI.eventTopic("Nothing()")], from: evm.startBlock, to: head)
                    .isEmpty)
        }
    }

    /// The escrow refusing a caller: eth_call and eth_estimateGas answer `.server` with the
    /// contract's reason; sent anyway with a fixed gas limit, it is mined with status 0.
    @Test func revertsAreTypedAndMinedAsStatusZero() async throws {
        let escrow = try #require(evm.escrow, "OW_EVM_ESCROW is not set")
        try await LocalEVM.shared { () async throws in
            let payout = try ABI.Function(signature: "payout(address,uint256,bytes32)")
                .callData([.address(other.address), .uint256(1 as UInt64), .bytes32([UInt8](repeating: 7, count: 32))])
            do throws(RPCError) {
                _ = try await evm.rpc.call(to: escrow, data: payout, from: sender.address)
                Issue.record("a payout by a non-operator was not refused")
            } catch {
                #expect(error.isRevert)
                #expect(error == .server(code: 3, message: "execution reverted: escrow: caller is not the operator"))
            }
            do throws(RPCError) {
                _ = try await evm.rpc.estimateGas(from: sender.address, to: escrow, data: payout)
                Issue.record("gas was estimated for a reverting call")
            } catch {
                #expect(error.isRevert && "\(error)".contains("caller is not the operator"))
            }
            let signed = try await evm.send(from: sender, to: escrow, data: payout, gasLimit: 200_000)
            let receipt = try await evm.minedReceipt(signed.hash)
            #expect(receipt.status == 0 && !receipt.succeeded && receipt.logs.isEmpty)
        }
    }

    @Test func unknownReceiptAndTransactionAreNil() async throws {
        try await LocalEVM.shared { () async throws in
            let unknown = Keccak256.hash("no such transaction \(UUID())")
            #expect(try await evm.rpc.receipt(unknown) == nil)
            #expect(try await evm.rpc.transaction(unknown) == nil)
        }
    }

    @Test func refusedTransactionsAreServerErrors() async throws {
        try await LocalEVM.shared { () async throws in
            // A nonce already used: refused by the node, not mistaken for "already known".
            let used = try await evm.send(from: sender, to: other.address, value: 1, gasLimit: 21_000).transaction.nonce
            let stale = try EIP1559Transaction(
                chainID: try await evm.rpc.chainID(), nonce: used, maxPriorityFeePerGas: 1_000_000_000,
                maxFeePerGas: 100_000_000_000, gasLimit: 21_000, to: other.address, value: 999
            ).signed(with: sender)
            do throws(RPCError) {
                _ = try await evm.rpc.sendRawTransaction(stale.raw)
                Issue.record("a stale nonce was accepted")
            } catch {
                guard case .server(_, let message) = error else {
                    Issue.record("not a server error: \(error)")
                    return
                }
                #expect(message.contains("nonce too low"))
            }
        }
    }
}
