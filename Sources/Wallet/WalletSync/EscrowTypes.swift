import Foundation

/// How to put money into the account through the escrow (`GET /v1/escrow/deposit`): approve the escrow to
/// take the tokens, then call its `deposit(amount, accountRef)`. The issuer credits the account
/// once the deposit has `confirmations` blocks on top of it.
///
/// Addresses are the issuer's EIP-55 text, passed on unchanged (the wallet has no Keccak, so it
/// neither makes nor checks checksums).
public struct DepositInstructions: Sendable, Equatable {
    /// The EVM chain id (decimal in the API).
    public var chainID: UInt64
    /// The escrow contract the deposit is made to.
    public var escrow: String
    /// The ERC-20 token the escrow holds.
    public var token: String
    /// This account's reference (0x + 64 hex digits, the escrow's `bytes32 accountRef`): a
    /// deposit carrying it is credited to this account.
    public var accountRef: String
    /// The token's decimals; equal to the currency's minor-unit digits (one token unit is one
    /// minor unit, nothing scaled).
    public var decimals: Int
    /// Blocks the issuer waits for after a deposit before crediting it.
    public var confirmations: Int
    /// ISO 4217 code of the account's currency.
    public var currency: String

    public init(
        chainID: UInt64, escrow: String, token: String, accountRef: String, decimals: Int, confirmations: Int, currency: String
    ) {
        self.chainID = chainID
        self.escrow = escrow
        self.token = token
        self.accountRef = accountRef
        self.decimals = decimals
        self.confirmations = confirmations
        self.currency = currency
    }
}

/// A withdrawal to an address on the blockchain, as the issuer tracks it: the account was debited when
/// it was requested; the issuer's operator key pays it out from the escrow.
public struct EscrowWithdrawal: Sendable, Equatable, Identifiable {
    /// Where the payout is.
    public enum Status: String, Sendable, Equatable, CaseIterable {
        /// Debited from the account, not sent to the blockchain yet.
        case pending
        /// The payout transaction is sent; waiting for its receipt.
        case sent
        /// Paid on the blockchain (final).
        case paid
        /// The blockchain refused the payout; the money is back in the account (final).
        case refused

        /// Paid or refused: nothing changes any more.
        public var isFinal: Bool { self == .paid || self == .refused }
    }

    /// 0x + 64 hex digits (the escrow's `bytes32 withdrawalId`).
    public var id: String
    /// Minor units (= token units).
    public var amount: UInt64
    /// The address paid, EIP-55 checksummed.
    public var to: String
    public var status: Status
    /// The payout transaction's hash once sent (0x + 64 hex).
    public var txHash: String?
    /// Why the blockchain refused it, when refused.
    public var reason: String?
    /// Seconds since 1970.
    public var createdAt: Int64
    public var updatedAt: Int64

    public init(
        id: String, amount: UInt64, to: String, status: Status, txHash: String? = nil, reason: String? = nil, createdAt: Int64,
        updatedAt: Int64
    ) {
        self.id = id
        self.amount = amount
        self.to = to
        self.status = status
        self.txHash = txHash
        self.reason = reason
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
