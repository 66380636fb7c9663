import Ethereum

/// The escrow contract (contracts/Escrow.vy) and its ERC-20 token from the server's side: the
/// call data of every function the server uses and the decoding of the two events it reads.
/// Pure: no I/O (`EscrowSettlement` sends the calls).
public enum EscrowContract {
    // MARK: Call data

    static let payoutFunction = ABI.Function(signature: "payout(address,uint256,bytes32)")

    /// `payout(address to, uint256 amount, bytes32 withdrawal_id)`: the operator's only write.
    /// A withdrawal id that is not 32 bytes is refused (the issuer makes 32).
    public static func payout(to: Address, amount: UInt64, withdrawalID: [UInt8]) throws(EscrowSettlementError) -> [UInt8] {
        do { return try payoutFunction.callData([.address(to), .uint256(amount), .bytes32(withdrawalID)]) } catch {
            throw .malformedAnswer("cannot encode the payout of withdrawal \(Hex.encode(withdrawalID)): \(error)")
        }
    }

    /// `paid(bytes32) -> bool`: whether a withdrawal id was paid out.
    public static func paid(_ withdrawalID: [UInt8]) -> [UInt8] {
        ABI.selector("paid(bytes32)") + ABI.encode([.bytes32(withdrawalID)])
    }
    /// `token() -> address`.
    public static let token = ABI.selector("token()")
    /// `operator() -> address`.
    public static let `operator` = ABI.selector("operator()")
    /// `owner() -> address`.
    public static let owner = ABI.selector("owner()")
    /// `paused() -> bool`.
    public static let paused = ABI.selector("paused()")
    /// `daily_cap() -> uint256`.
    public static let dailyCap = ABI.selector("daily_cap()")
    /// `paid_today() -> uint256` (0 once a new UTC day began).
    public static let paidToday = ABI.selector("paid_today()")

    /// The ERC-20 token's calls.
    public enum Token {
        /// `decimals() -> uint8`.
        public static let decimals = ABI.selector("decimals()")
        /// `balanceOf(address) -> uint256`.
        public static func balanceOf(_ owner: Address) -> [UInt8] { ABI.selector("balanceOf(address)") + owner.word }
    }

    // MARK: Events

    /// topic0 of `Deposit(bytes32 indexed account_ref, address indexed sender, uint256 amount)`.
    public static let depositTopic = ABI.eventTopic("Deposit(bytes32,address,uint256)")
    /// topic0 of `Payout(bytes32 indexed withdrawal_id, address indexed to, uint256 amount)`.
    public static let payoutTopic = ABI.eventTopic("Payout(bytes32,address,uint256)")

    /// A `Deposit` or `Payout` event as the escrow logged it: the 32-byte id (account reference
    /// or withdrawal id), the address (sender or recipient) and the amount as the EVM's
    /// uint256 word (it may not fit the ledger: `amount` says).
    public struct Event: Sendable, Equatable {
        public let id: [UInt8]
        public let address: Address
        /// The 32-byte big-endian uint256.
        public let amountWord: [UInt8]
        public let blockNumber: UInt64
        public let transactionHash: [UInt8]
        public let logIndex: UInt64

        /// The amount if it fits in 64 bits; nil for a larger uint256 (never truncated).
        public var amount: UInt64? { try? ABI.decodeUInt64(amountWord) }
    }

    /// Decodes a log of `topic` (`depositTopic` or `payoutTopic`): two indexed fields in
    /// topics 1 and 2, the amount in the data. A log of another shape is an error (it cannot be
    /// one of this escrow's events), never guessed at.
    public static func decode(
        topic: [UInt8], topics: [[UInt8]], data: [UInt8], blockNumber: UInt64, transactionHash: [UInt8], logIndex: UInt64
    ) throws(EscrowSettlementError) -> Event {
        let name = topic == depositTopic ? "Deposit" : "Payout"
        guard topics.count == 3, topics[0] == topic, topics[1].count == 32, data.count == 32,
            let address = try? ABI.decodeAddress(topics[2])
        else {
            throw .malformedLog(
                "log \(logIndex) of transaction \(Hex.encode(transactionHash)) is not a \(name) event (\(topics.count) topics, \(data.count) data bytes)"
            )
        }
        return Event(
            id: topics[1], address: address, amountWord: data, blockNumber: blockNumber, transactionHash: transactionHash,
            logIndex: logIndex)
    }

    // MARK: Return values

    /// The first word of a call's return data as an address.
    public static func address(_ data: [UInt8], of call: String) throws(EscrowSettlementError) -> Address {
        do { return try ABI.decodeAddress(try ABI.word(data, at: 0)) } catch { throw .malformedAnswer("\(call): \(error)") }
    }

    /// The first word of a call's return data as a bool.
    public static func bool(_ data: [UInt8], of call: String) throws(EscrowSettlementError) -> Bool {
        do { return try ABI.decodeBool(try ABI.word(data, at: 0)) } catch { throw .malformedAnswer("\(call): \(error)") }
    }

    /// The first word of a call's return data as a uint256 that must fit in 64 bits.
    public static func uint64(_ data: [UInt8], of call: String) throws(EscrowSettlementError) -> UInt64 {
        do { return try ABI.decodeUInt64(try ABI.word(data, at: 0)) } catch { throw .malformedAnswer("\(call): \(error)") }
    }
}
