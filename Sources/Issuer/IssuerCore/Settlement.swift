import SQLStore

/// Where money enters the issuer's books from outside: a bank, a card processor, or later a
/// blockchain. The issuer credits an account only with what its adapter confirms; the journal
/// records it against `system:funding`. One protocol, so another settlement rail is an adapter,
/// not a change to the ledger.
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
