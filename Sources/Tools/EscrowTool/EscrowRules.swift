// What `wallet-escrow` knows of the escrow's rules without asking the EVM node: how a cap change
// reads in a receipt, and which ownership moves the contract refuses (checked before sending, so
// a mistake costs no gas and reads as what it is). Pure, so the tests pin them down.
import Ethereum
import EthereumRPC
import Foundation

/// What `set_daily_cap` did, read from its receipt's logs: a cut (or equal cap) applies at once
/// (`DailyCapChanged`), a raise only from `effectiveAt` (`DailyCapRaiseScheduled`).
enum CapChange: Equatable {
    /// `DailyCapChanged(previous_cap, new_cap)`: `cap` is in force now.
    case applied(previous: [UInt8], cap: [UInt8])
    /// `DailyCapRaiseScheduled(current_cap, new_cap, effective_at)`: `current` stays until
    /// `effectiveAt` (seconds since 1970, UTC), then `cap` applies.
    case scheduled(current: [UInt8], cap: [UInt8], effectiveAt: UInt64)

    static let appliedTopic = ABI.eventTopic("DailyCapChanged(uint256,uint256)")
    static let scheduledTopic = ABI.eventTopic("DailyCapRaiseScheduled(uint256,uint256,uint256)")

    /// The escrow's cap event among `logs` (others' logs, and removed ones, are ignored). A
    /// receipt of a successful `set_daily_cap` always has exactly one; none means the address
    /// is not this escrow (or a contract of another version).
    static func from(logs: [Log], escrow: Address) throws(EscrowToolError) -> CapChange {
        for log in logs where log.address == escrow && !log.removed {
            guard let topic = log.topics.first else { continue }
            let words = stride(from: 0, to: log.data.count - log.data.count % 32, by: 32).map { Array(log.data[$0..<$0 + 32]) }
            if topic == appliedTopic {
                guard words.count == 2 else {
                    throw .unexpectedAnswer("DailyCapChanged with \(log.data.count) bytes of data, not 64")
                }
                return .applied(previous: words[0], cap: words[1])
            }
            if topic == scheduledTopic {
                guard words.count == 3 else {
                    throw .unexpectedAnswer("DailyCapRaiseScheduled with \(log.data.count) bytes of data, not 96")
                }
                guard let at = TokenAmount.units(word: words[2]), let seconds = UInt64(exactly: at) else {
                    throw .unexpectedAnswer("DailyCapRaiseScheduled with an effective time beyond any date")
                }
                return .scheduled(current: words[0], cap: words[1], effectiveAt: seconds)
            }
        }
        throw .unexpectedAnswer(
            "set_daily_cap was mined but \(escrow.checksummed) logged neither DailyCapChanged nor DailyCapRaiseScheduled (an escrow of another version?)"
        )
    }
}

/// The ownership moves the escrow refuses, with the contract's own reasons.
enum OwnershipRules {
    /// Why `transfer_ownership(newOwner)` would be refused (the owner check aside), or nil.
    /// The zero address is allowed: it withdraws a pending offer.
    static func offerRefusal(newOwner: Address, operator: Address, escrow: Address, token: Address) -> String? {
        if newOwner == `operator` {
            return "escrow: new owner is the operator (\(newOwner.checksummed) is the operator; the two roles stay apart)"
        }
        if newOwner == escrow || newOwner == token {
            return "escrow: new owner is the escrow or its token (\(newOwner.checksummed) cannot sign, so could never accept)"
        }
        return nil
    }

    /// Why `accept_ownership()` from `key` would be refused, or nil.
    static func acceptRefusal(key: Address, pending: Address, operator: Address) -> EscrowToolError? {
        guard pending == key else {
            return .notPendingOwner(key: key.checksummed, pending: pending == .zero ? nil : pending.checksummed)
        }
        if key == `operator` {
            return .wouldRevert(
                action: "accept the escrow's ownership",
                reason:
                    "escrow: new owner is the operator (\(key.checksummed) became the operator after the offer; the owner must set another operator first)"
            )
        }
        return nil
    }
}

/// UTC timestamps as ISO 8601 (`2026-11-25T04:50:00Z`). The EVM's times are uint256
/// seconds; one past year 9999 (no contract of ours sets one, but the tool prints what the
/// blockchain says) is shown as its number rather than as a date ISO 8601 cannot write.
enum UTCTime {
    /// 9999-12-31T23:59:59Z, the last second ISO 8601's four-digit years reach.
    static let lastWritable: UInt64 = 253_402_300_799

    static func iso8601(_ seconds: UInt64) -> String {
        guard seconds <= lastWritable else { return "\(seconds) s after 1970 (beyond year 9999)" }
        return Date(timeIntervalSince1970: TimeInterval(seconds)).ISO8601Format()
    }
}
