import SQLStore

/// The confirmation step of `Issuer.deposit`: the issuer credits an account only with the amount
/// its adapter confirms, and the journal records it against `system:funding`. Its one conformer
/// is `BuiltInSettlement` (development funding and tests). Escrow settlement does not pass
/// through it: `EscrowSettlement` credits escrow deposits with `Issuer.creditEscrowDeposits` and
/// books payouts with `Issuer.recordPayout` and `Issuer.completeWithdrawal` (Escrow.swift).
public protocol SettlementAdapter: Sendable {
    /// Confirms an external deposit and returns the amount to credit (in minor units).
    /// Throws if the deposit cannot be confirmed; nothing is credited then.
    func confirmDeposit(account: Int64, amount: UInt64, reference: String) async throws -> UInt64
}

/// The default: the built-in ledger trusts the caller (development funding and tests, behind
/// `IssuerConfig.devFunding`).
public struct BuiltInSettlement: SettlementAdapter {
    public init() {}
    public func confirmDeposit(account: Int64, amount: UInt64, reference: String) async throws -> UInt64 { amount }
}
