import Ethereum

/// Which block a read refers to.
public enum BlockTag: Sendable, Equatable, Hashable {
    /// The newest block the node has (the head).
    case latest
    /// The head plus the node's pending transactions (for the next nonce to use).
    case pending
    case earliest
    /// A block by number.
    case number(UInt64)

    /// The JSON-RPC block parameter.
    public var json: JSON {
        switch self {
        case .latest: "latest"
        case .pending: "pending"
        case .earliest: "earliest"
        case .number(let n): .string(Hex.quantity(n))
        }
    }
}

/// What a node call can fail with. Each message says what to check.
public enum RPCError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The node answered with a JSON-RPC error (a revert, a refused transaction, an unknown
    /// method). For a revert the message carries the contract's reason when the node gave one.
    case server(code: Int, message: String)
    /// No answer: the node could not be reached, the connection failed, timed out, or answered
    /// with an HTTP error and no JSON-RPC body.
    case transport(String)
    /// An answer that is not what the JSON-RPC spec says (not JSON, a wrong field, a number that
    /// does not fit). Usually the URL names something that is not an Ethereum node.
    case malformed(String)

    public var description: String {
        switch self {
        case .server(let code, let message): "the node refused the request (error \(code)): \(message)"
        case .transport(let why): why
        case .malformed(let why): why
        }
    }

    /// True for a contract revert (eth_call, eth_estimateGas): code 3, or a message saying so.
    public var isRevert: Bool {
        guard case .server(let code, let message) = self else { return false }
        return code == 3 || message.lowercased().contains("revert")
    }
}

/// A block header's fields this project reads.
public struct Block: Sendable, Equatable {
    public let number: UInt64
    public let hash: [UInt8]
    public let parentHash: [UInt8]
    /// Seconds since 1970 (the escrow's day window is `timestamp / 86400`).
    public let timestamp: UInt64
    /// nil before London (EIP-1559).
    public let baseFeePerGas: UInt128?
}

/// An event log.
public struct Log: Sendable, Equatable {
    /// The contract that emitted it.
    public let address: Address
    /// topic0 = keccak(event signature), then the indexed arguments, each 32 bytes.
    public let topics: [[UInt8]]
    /// The non-indexed arguments, ABI-encoded.
    public let data: [UInt8]
    public let blockNumber: UInt64
    public let blockHash: [UInt8]
    public let transactionHash: [UInt8]
    /// Position in the block (unique per block, so (transactionHash, logIndex) names a log).
    public let logIndex: UInt64
    /// True when a reorganisation took the log back (nodes report it to filters).
    public let removed: Bool

    public init(
        address: Address, topics: [[UInt8]], data: [UInt8], blockNumber: UInt64, blockHash: [UInt8],
        transactionHash: [UInt8], logIndex: UInt64, removed: Bool
    ) {
        self.address = address
        self.topics = topics
        self.data = data
        self.blockNumber = blockNumber
        self.blockHash = blockHash
        self.transactionHash = transactionHash
        self.logIndex = logIndex
        self.removed = removed
    }
}

/// A mined transaction's receipt.
public struct Receipt: Sendable, Equatable {
    public let transactionHash: [UInt8]
    public let blockNumber: UInt64
    public let blockHash: [UInt8]
    /// 1: executed; 0: reverted (mined, fee paid, no effect).
    public let status: UInt64
    public let gasUsed: UInt64
    public let effectiveGasPrice: UInt128?
    public let from: Address?
    public let to: Address?
    /// The created contract, for a creation.
    public let contractAddress: Address?
    public let logs: [Log]

    /// status == 1.
    public var succeeded: Bool { status == 1 }
}

/// A transaction as eth_getTransactionByHash reports it.
public struct TransactionInfo: Sendable, Equatable {
    public let hash: [UInt8]
    public let from: Address
    public let to: Address?
    public let nonce: UInt64
    /// nil while pending.
    public let blockNumber: UInt64?
}
