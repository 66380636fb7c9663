import OfflineNotes
import WalletCore

/// Everything a wallet holds, for "bad input changes no state" checks (DESIGN §2.7): every
/// balance line, every note state with its chain and status, the whole history, the payments
/// awaiting a receipt, the fraud proofs caught and the installed limits. Compare one taken
/// before the bad input with one taken after.
struct WalletState: Equatable {
    let balance: Balance
    let states: [StoredState]
    let history: [HistoryEntry]
    let pending: [OutgoingPayment]
    let fraudProofs: [FraudProof]
    let limits: Limits

    init(_ wallet: Wallet) throws {
        balance = try wallet.balance()
        states = try wallet.states()
        history = try wallet.history(HistoryFilter(limit: 1_000))
        pending = try wallet.pendingPayments()
        fraudProofs = try wallet.fraudProofs()
        limits = try wallet.limits()
    }
}
