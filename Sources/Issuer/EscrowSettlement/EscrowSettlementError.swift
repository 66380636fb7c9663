/// What went wrong on the EVM side, in words that say what to do.
public enum EscrowSettlementError: Error, Sendable, Equatable, CustomStringConvertible {
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
            "The EVM node failed: \(m). Check --escrow-rpc and that the node is up and synced; the server retries."
        case .malformedLog(let m):
            "The escrow logged something unexpected: \(m). Check --escrow-address names the Offline Wallet escrow."
        case .malformedAnswer(let m):
            "The EVM node answered something unexpected: \(m). Check --escrow-address names the Offline Wallet escrow."
        case .configuration(let m): m
        }
    }
}
