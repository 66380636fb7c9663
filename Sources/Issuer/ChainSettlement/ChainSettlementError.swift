/// What went wrong on the chain side, in words that say what to do.
public enum ChainSettlementError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The node could not be reached or answered with an error.
    case node(String)
    /// A log of the escrow's address that is not the event it should be.
    case malformedLog(String)
    /// A contract call answered something that is not the ABI value expected.
    case malformedAnswer(String)
    /// A configuration the server cannot start with.
    case configuration(String)

    public var description: String {
        switch self {
        case .node(let m):
            "The chain node failed: \(m). Check --chain-rpc and that the node is up and synced; the server retries."
        case .malformedLog(let m):
            "The escrow logged something unexpected: \(m). Check --chain-escrow names the Offline Wallet escrow."
        case .malformedAnswer(let m):
            "The chain answered something unexpected: \(m). Check --chain-escrow names the Offline Wallet escrow."
        case .configuration(let m): m
        }
    }
}
