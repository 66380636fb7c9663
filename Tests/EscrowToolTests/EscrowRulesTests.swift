import Ethereum
import EthereumRPC
import Testing

@testable import EscrowTool

/// `wallet-escrow` reports what the escrow did to the cap from its receipt, and refuses before
/// sending the ownership moves the escrow would refuse.
@Suite struct EscrowRulesTests {
    static let escrow = address("0x2946259e0334f33a064106302415ad3391bed384")
    static let token = address("0xf2e246bb76df876cef8b38ae84130f4f55de395b")
    static let owner = address("0x7e5f4552091a69125d5dfcb7b8c2659029395bdf")
    static let operatorKey = address("0x2b5ad5c4795c026514f8317c7a215e218dccd6cf")
    static let user = address("0x6813eb9362372eef6200f3b1dbc3f819671cba69")

    static func address(_ text: String) -> Address {
        do { return try Address(hex: text) } catch { fatalError("test address \(text): \(error)") }
    }

    static func word(_ value: UInt64) -> [UInt8] {
        [UInt8](repeating: 0, count: 24) + (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    static func log(_ topic: [UInt8], _ words: [[UInt8]], from emitter: Address = escrow, removed: Bool = false) -> Log {
        Log(
            address: emitter, topics: [topic], data: words.flatMap { $0 }, blockNumber: 9,
            blockHash: [UInt8](repeating: 1, count: 32),
            transactionHash: [UInt8](repeating: 2, count: 32), logIndex: 0, removed: removed)
    }

    // MARK: set-daily-cap reads the escrow's event

    /// A raise waits 24 hours: the receipt's DailyCapRaiseScheduled says until when, and what
    /// stays in force meanwhile, never "the daily cap is now X".
    @Test func aRaiseIsReadAsScheduledWithItsTime() throws {
        let logs = [Self.log(CapChange.scheduledTopic, [Self.word(250_000), Self.word(999_999), Self.word(1_795_582_153)])]
        let change = try CapChange.from(logs: logs, escrow: Self.escrow)
        #expect(change == .scheduled(current: Self.word(250_000), cap: Self.word(999_999), effectiveAt: 1_795_582_153))
        #expect(UTCTime.iso8601(1_795_582_153) == "2026-11-25T04:49:13Z")
    }

    @Test func aCutIsReadAsAppliedAtOnce() throws {
        let logs = [Self.log(CapChange.appliedTopic, [Self.word(500_000), Self.word(100_000)])]
        #expect(
            try CapChange.from(logs: logs, escrow: Self.escrow) == .applied(previous: Self.word(500_000), cap: Self.word(100_000))
        )
    }

    /// Only the escrow's own, not-removed log counts: a look-alike event from another contract
    /// in the same transaction must not be taken for the escrow's decision.
    @Test func ignoresOtherContractsAndRemovedLogs() throws {
        let logs = [
            Self.log(CapChange.appliedTopic, [Self.word(1), Self.word(2)], from: Self.token),
            Self.log(CapChange.appliedTopic, [Self.word(3), Self.word(4)], removed: true),
            Self.log(CapChange.scheduledTopic, [Self.word(5), Self.word(6), Self.word(7)]),
        ]
        #expect(
            try CapChange.from(logs: logs, escrow: Self.escrow)
                == .scheduled(current: Self.word(5), cap: Self.word(6), effectiveAt: 7))
    }

    /// No cap event (an escrow of another version) or a malformed one is an error, never a guess.
    @Test func refusesAReceiptWithoutACapEvent() {
        let none = #expect(throws: EscrowToolError.self) { try CapChange.from(logs: [], escrow: Self.escrow) }
        #expect(none?.code == "unexpected_answer")
        #expect(none?.description.contains("DailyCapRaiseScheduled") == true)
        let short = [Self.log(CapChange.scheduledTopic, [Self.word(5), Self.word(6)])]
        #expect(throws: EscrowToolError.self) { try CapChange.from(logs: short, escrow: Self.escrow) }
        var huge = [UInt8](repeating: 0, count: 32)
        huge[0] = 1
        let beyond = [Self.log(CapChange.scheduledTopic, [Self.word(5), Self.word(6), huge])]
        #expect(throws: EscrowToolError.self) { try CapChange.from(logs: beyond, escrow: Self.escrow) }
    }

    @Test(arguments: [
        (UInt64(0), "1970-01-01T00:00:00Z"), (86_399, "1970-01-01T23:59:59Z"), (951_782_400, "2000-02-29T00:00:00Z"),
        (1_709_251_199, "2024-02-29T23:59:59Z"), (4_102_444_800, "2100-01-01T00:00:00Z"),
        (253_402_300_799, "9999-12-31T23:59:59Z"), (253_402_300_800, "253402300800 s after 1970 (beyond year 9999)"),
        (UInt64.max, "18446744073709551615 s after 1970 (beyond year 9999)"),
    ])
    func formatsUTCTimesAsISO8601(_ seconds: UInt64, _ text: String) {
        #expect(UTCTime.iso8601(seconds) == text)
    }

    // MARK: ownership

    /// What the escrow's transfer_ownership refuses is refused before anything is sent, with
    /// the contract's reason; anyone else (and 0x0, which withdraws an offer) may be offered.
    @Test func anOfferToTheOperatorEscrowOrTokenIsRefused() {
        let refusal = { (candidate: Address) in
            OwnershipRules.offerRefusal(newOwner: candidate, operator: Self.operatorKey, escrow: Self.escrow, token: Self.token)
        }
        #expect(refusal(Self.operatorKey)?.hasPrefix("escrow: new owner is the operator") == true)
        #expect(refusal(Self.escrow)?.hasPrefix("escrow: new owner is the escrow or its token") == true)
        #expect(refusal(Self.token)?.hasPrefix("escrow: new owner is the escrow or its token") == true)
        #expect(refusal(Self.user) == nil)
        #expect(refusal(.zero) == nil)
    }

    /// accept-ownership from a key that is not the pending owner names the pending owner (or
    /// says no offer is pending), exit 3, before gas is spent.
    @Test func acceptFromAnotherKeyNamesThePendingOwner() throws {
        let wrong = try #require(OwnershipRules.acceptRefusal(key: Self.owner, pending: Self.user, operator: Self.operatorKey))
        #expect(wrong.code == "not_pending_owner")
        #expect(wrong.exit == .refused)
        #expect(wrong.description.contains("offered to \(Self.user.checksummed)"))
        let none = try #require(OwnershipRules.acceptRefusal(key: Self.user, pending: .zero, operator: Self.operatorKey))
        #expect(none.code == "not_pending_owner")
        #expect(none.description.contains("No ownership offer is pending"))
        #expect(none.description.contains("transfer-ownership \(Self.user.checksummed)"))
        #expect(OwnershipRules.acceptRefusal(key: Self.user, pending: Self.user, operator: Self.operatorKey) == nil)
    }

    /// The offered key became the operator after the offer: the escrow refuses the accept.
    @Test func acceptByAKeyThatBecameTheOperatorIsRefused() throws {
        let refusal = try #require(
            OwnershipRules.acceptRefusal(key: Self.operatorKey, pending: Self.operatorKey, operator: Self.operatorKey))
        #expect(refusal.code == "reverted")
        #expect(refusal.exit == .refused)
        #expect(refusal.description.contains("escrow: new owner is the operator"))
    }
}
