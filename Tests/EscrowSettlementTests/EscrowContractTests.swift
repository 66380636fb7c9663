import Ethereum
import Testing

@testable import EscrowSettlement

/// The escrow's call data and event decoding against values computed independently (Python's
/// eth_hash over the same signatures), and the refusals of logs that are not the escrow's events.
@Suite struct EscrowContractTests {
    let recipient = try! Address(hex: "0x00000000000000000000000000000000000000aa")

    @Test func payoutCallDataIsSelectorThenThreeWords() throws {
        let id = [UInt8](repeating: 0x11, count: 32)
        let data = try EscrowContract.payout(to: recipient, amount: 1_234, withdrawalID: id)
        #expect(Hex.encode(data.prefix(4)) == "0x9de34c05")
        #expect(data.count == 4 + 3 * 32)
        #expect(Array(data[4..<36]) == [UInt8](repeating: 0, count: 12) + recipient.bytes)
        #expect(Array(data[36..<68]) == [UInt8](repeating: 0, count: 30) + [0x04, 0xd2])
        #expect(Array(data[68..<100]) == id)
        #expect(Hex.encode(EscrowContract.paid(id).prefix(4)) == "0xadd89bb2")
    }

    /// A withdrawal id that is not 32 bytes is refused, not padded into another id.
    @Test func aShortWithdrawalIDIsRefused() {
        #expect(throws: EscrowSettlementError.self) {
            try EscrowContract.payout(to: recipient, amount: 1, withdrawalID: [1, 2, 3])
        }
    }

    @Test func eventTopicsAreTheSignatureHashes() {
        #expect(Hex.encode(EscrowContract.depositTopic) == "0x182fa52899142d44ff5c45a6354d3b3e868d5b07db6a65580b39bd321bdaf8ac")
        #expect(Hex.encode(EscrowContract.payoutTopic) == "0x759c8b4be669de020af1bc6ea61d5414d010ba30e22badb7369f3bda08a963d7")
    }

    @Test func aDepositLogDecodes() throws {
        let ref = [UInt8](repeating: 0x22, count: 32)
        let event = try EscrowContract.decode(
            topic: EscrowContract.depositTopic, topics: [EscrowContract.depositTopic, ref, recipient.word],
            data: [UInt8](repeating: 0, count: 31) + [7], blockNumber: 9, transactionHash: [UInt8](repeating: 3, count: 32),
            logIndex: 2)
        #expect(event.id == ref)
        #expect(event.address == recipient)
        #expect(event.amount == 7)
        #expect(event.blockNumber == 9 && event.logIndex == 2)
    }

    /// A uint256 beyond 64 bits has no UInt64 amount (never truncated to its low bits), and its
    /// exact decimal value is what the logs print.
    @Test func anAmountBeyond64BitsIsNotTruncated() throws {
        let word = [UInt8](repeating: 0, count: 23) + [1] + [UInt8](repeating: 0, count: 7) + [5]  // 2^64 + 5
        let event = try EscrowContract.decode(
            topic: EscrowContract.depositTopic,
            topics: [EscrowContract.depositTopic, [UInt8](repeating: 0, count: 32), recipient.word],
            data: word, blockNumber: 1, transactionHash: [UInt8](repeating: 3, count: 32), logIndex: 0)
        #expect(event.amount == nil)
        #expect(ABI.decimalString(word) == "18446744073709551621")
        #expect(ABI.decimalString([UInt8](repeating: 0, count: 32)) == "0")
    }

    @Test func logsOfAnotherShapeAreRefused() {
        let ref = [UInt8](repeating: 0x22, count: 32)
        let ok = [EscrowContract.depositTopic, ref, recipient.word]
        let amount = [UInt8](repeating: 0, count: 32)
        let cases: [([[UInt8]], [UInt8])] = [
            ([EscrowContract.payoutTopic, ref, recipient.word], amount),  // another event
            (Array(ok.prefix(2)), amount),  // a topic missing
            (ok, amount + amount),  // data too long
            ([EscrowContract.depositTopic, ref, [UInt8](repeating: 0xff, count: 32)], amount),  // not an address
        ]
        for (topics, data) in cases {
            #expect(throws: EscrowSettlementError.self) {
                try EscrowContract.decode(
                    topic: EscrowContract.depositTopic, topics: topics, data: data, blockNumber: 1,
                    transactionHash: [UInt8](repeating: 3, count: 32), logIndex: 0)
            }
        }
    }

    /// A block with k blocks on top has k + 1 confirmations.
    @Test func confirmedBlock() {
        #expect(DepositScanner.confirmed(head: 10, confirmations: 1) == 10)
        #expect(DepositScanner.confirmed(head: 10, confirmations: 3) == 8)
        #expect(DepositScanner.confirmed(head: 10, confirmations: 11) == 0)
        #expect(DepositScanner.confirmed(head: 10, confirmations: 12) == nil)
    }
}
