import Ethereum
import EthereumRPC

/// The escrow and its token as read through a node: every EVM read and write the settlement
/// makes goes through here, each failure turned into a `EscrowSettlementError` that names it.
struct Escrow: Sendable {
    let rpc: JSONRPCClient
    let address: Address
    let token: Address

    /// Runs one node request, naming what it was for in the error.
    func node<T>(_ what: String, _ body: () async throws -> T) async throws(EscrowSettlementError) -> T {
        do { return try await body() } catch let error as EscrowSettlementError { throw error } catch {
            throw .node("\(what): \(error)")
        }
    }

    func head() async throws(EscrowSettlementError) -> UInt64 {
        try await node("eth_blockNumber") { try await rpc.blockNumber() }
    }

    /// `eth_call` of the escrow (or `to`) at `block` (nil: latest).
    func call(
        _ data: [UInt8], to: Address? = nil, at block: UInt64? = nil, _ what: String
    ) async throws(EscrowSettlementError) -> [UInt8] {
        try await node("eth_call \(what)") {
            try await rpc.call(to: to ?? address, data: data, block: block.map { .number($0) } ?? .latest)
        }
    }

    func paid(_ withdrawalID: [UInt8], at block: UInt64? = nil) async throws(EscrowSettlementError) -> Bool {
        try EscrowContract.bool(try await call(EscrowContract.paid(withdrawalID), at: block, "paid(id)"), of: "paid(id)")
    }

    func balance(at block: UInt64) async throws(EscrowSettlementError) -> [UInt8] {
        let data = try await call(EscrowContract.Token.balanceOf(address), to: token, at: block, "token balanceOf(escrow)")
        do { return try ABI.word(data, at: 0) } catch { throw .malformedAnswer("token balanceOf(escrow): \(error)") }
    }

    /// The escrow's logs of `topic` in blocks from...to, in block order, without those a node
    /// marks removed (a reorganisation took them back).
    func events(_ topic: [UInt8], from: UInt64, to: UInt64) async throws(EscrowSettlementError) -> [EscrowContract.Event] {
        let logs = try await node("eth_getLogs \(from)...\(to)") {
            try await rpc.logs(address: address, topics: [topic], from: from, to: to)
        }
        var events: [EscrowContract.Event] = []
        for log in logs where !log.removed {
            guard log.address == address else { continue }
            events.append(
                try EscrowContract.decode(
                    topic: topic, topics: log.topics, data: log.data, blockNumber: log.blockNumber,
                    transactionHash: log.transactionHash,
                    logIndex: log.logIndex))
        }
        return events.sorted { ($0.blockNumber, $0.logIndex) < ($1.blockNumber, $1.logIndex) }
    }
}
