import Foundation

/// The escrow sheets (issuers in escrow mode; others answer "not available", which the sheets show).
extension AppModel {
    /// The Deposit sheet on this session; nil without a session (log in first) or before the
    /// wallet knows its currency.
    public func makeDeposit(locale: Locale = .current) -> DepositModel? {
        guard let session, let currency else { return nil }
        return DepositModel(session: session, currency: currency, locale: locale)
    }

    /// The Withdraw sheet on this session, its maximum the settled balance home shows (0 until
    /// the issuer answered once; `WithdrawModel.load()` reads it). Nil without a session or
    /// before the wallet knows its currency.
    public func makeWithdraw(locale: Locale = .current) -> WithdrawModel? {
        guard let session, let currency else { return nil }
        return WithdrawModel(
            session: session, currency: currency, settled: UInt64(max(0, home?.settled ?? 0)), clock: clockForScreens,
            locale: locale)
    }
}
