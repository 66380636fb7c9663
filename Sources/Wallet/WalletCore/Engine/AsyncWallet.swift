import Dispatch
import OfflineNotes

/// The wallet for a UI: every call is `async` and runs the synchronous engine work (SQLite
/// reads and writes, signing, scrypt) on a background dispatch queue, never on the caller's
/// actor, so a `@MainActor` screen stays responsive while a payment is signed or a passphrase
/// is stretched.
///
/// A wrapper type rather than `async` overloads on `Wallet`: Swift prefers an `async` overload
/// inside any `async` function, so same-named overloads would silently turn every existing
/// synchronous call in async code (the CLI, the flows, the tests) into a suspension — or a
/// compile error where it lacks `await`. Here the choice is explicit: hold an `AsyncWallet` to
/// stay off your actor, use `wallet` for the synchronous engine. Both see the same database.
///
/// Work is not cancellable once it has started: each call is one transaction that commits or
/// rolls back entirely, and a value-moving call must never be abandoned half-way (a signed
/// payment is resent, never re-signed). Errors are the engine's, typed `WalletError`.
public struct AsyncWallet: Sendable {
    /// The synchronous engine underneath.
    public let wallet: Wallet

    public init(_ wallet: Wallet) { self.wallet = wallet }

    /// Concurrent: SQLite already serializes writers and lets readers run beside them, so a
    /// slow backup export (scrypt) does not hold up a balance read. Dispatch rather than a
    /// Swift task: blocking I/O and scrypt would otherwise occupy the cooperative thread pool.
    static let queue = DispatchQueue(label: "offline-wallet.engine", qos: .userInitiated, attributes: .concurrent)

    /// Runs `body` on `queue` and resumes the caller with its result.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws(WalletError) -> T) async throws(WalletError) -> T {
        let result = await withCheckedContinuation { (done: CheckedContinuation<Result<T, WalletError>, Never>) in
            queue.async { done.resume(returning: Result { () throws(WalletError) -> T in try body() }) }
        }
        return try result.get()
    }

    func run<T: Sendable>(_ body: @escaping @Sendable (Wallet) throws(WalletError) -> T) async throws(WalletError) -> T {
        let wallet = self.wallet
        return try await Self.run { () throws(WalletError) -> T in try body(wallet) }
    }

    public var publicKey: PublicKeyBytes { wallet.publicKey }

    // MARK: Opening (scrypt runs here when a passphrase is given)

    /// `Wallet.create`, off the caller's actor. With a `keyStore`, `passphrase` and `keyCost`
    /// do not apply (nil: the passphrase-sealable key file in `directory`).
    public static func create(
        directory: String, passphrase: String? = nil, keyCost: PassphraseBox.Cost = .interactive,
        keyStore: (any KeyStore)? = nil, environment: WalletEnvironment = .live
    ) async throws(WalletError) -> AsyncWallet {
        AsyncWallet(
            try await run { () throws(WalletError) in
                try Wallet.create(
                    directory: directory, passphrase: passphrase, keyCost: keyCost, keyStore: keyStore, environment: environment)
            })
    }

    /// `Wallet.open(directory:)`, off the caller's actor. With a `keyStore`, `passphrase` does
    /// not apply (nil: the key file in `directory`).
    public static func open(
        directory: String, passphrase: String? = nil, keyStore: (any KeyStore)? = nil,
        environment: WalletEnvironment = .live
    ) async throws(WalletError) -> AsyncWallet {
        AsyncWallet(
            try await run { () throws(WalletError) in
                try Wallet.open(directory: directory, passphrase: passphrase, keyStore: keyStore, environment: environment)
            })
    }

    /// `Wallet.open(identity:databasePath:)`, off the caller's actor.
    public static func open(
        identity: WalletIdentity, databasePath: String, environment: WalletEnvironment = .live
    ) async throws(WalletError) -> AsyncWallet {
        AsyncWallet(
            try await run { () throws(WalletError) in
                try Wallet.open(identity: identity, databasePath: databasePath, environment: environment)
            })
    }

    /// `Wallet.restore`, off the caller's actor. With a `keyStore` (the new key goes there),
    /// `keyPassphrase` and `keyCost` do not apply.
    public static func restore(
        _ backup: [UInt8], passphrase: String, into directory: String, keyPassphrase: String? = nil,
        keyCost: PassphraseBox.Cost = .interactive, keyStore: (any KeyStore)? = nil,
        environment: WalletEnvironment = .live
    ) async throws(WalletError) -> AsyncWallet {
        AsyncWallet(
            try await run { () throws(WalletError) in
                try Wallet.restore(
                    backup, passphrase: passphrase, into: directory, keyPassphrase: keyPassphrase, keyCost: keyCost,
                    keyStore: keyStore, environment: environment)
            })
    }

    // MARK: Observation

    /// `Wallet.snapshots(recent:)`: already asynchronous; its reads run on its own queue.
    public func snapshots(recent: Int = 20) -> WalletSnapshots { wallet.snapshots(recent: recent) }

    /// `Wallet.refreshSnapshots()`: only schedules re-reads, so it never blocks.
    public func refreshSnapshots() { wallet.refreshSnapshots() }

    /// `Wallet.snapshot(recent:)`.
    public func snapshot(recent: Int = 20) async throws(WalletError) -> WalletSnapshot {
        try await run { w throws(WalletError) in try w.snapshot(recent: recent) }
    }

    // MARK: Engine calls

    /// `Wallet.installTrust`.
    public func installTrust(authority: PublicKeyBytes, keyset: [UInt8], limits: [UInt8]) async throws(WalletError) {
        try await run { w throws(WalletError) in try w.installTrust(authority: authority, keyset: keyset, limits: limits) }
    }

    /// `Wallet.limits()`.
    public func limits() async throws(WalletError) -> Limits {
        try await run { w throws(WalletError) in try w.limits() }
    }

    /// `Wallet.deposit`.
    @discardableResult
    public func deposit(_ chains: [Chain]) async throws(WalletError) -> UInt64 {
        try await run { w throws(WalletError) in try w.deposit(chains) }
    }

    /// `Wallet.balance()`.
    public func balance() async throws(WalletError) -> Balance {
        try await run { w throws(WalletError) in try w.balance() }
    }

    /// `Wallet.pay`: selecting, signing and committing happen off the caller's actor.
    public func pay(
        _ request: PaymentRequest, amount: UInt64? = nil, method: PaymentMethod = .qr
    ) async throws(WalletError)
        -> OutgoingPayment
    {
        try await run { w throws(WalletError) in try w.pay(request, amount: amount, method: method) }
    }

    /// `Wallet.confirm(receipt:)`.
    @discardableResult
    public func confirm(receipt bytes: [UInt8]) async throws(WalletError) -> OutgoingPayment {
        try await run { w throws(WalletError) in try w.confirm(receipt: bytes) }
    }

    /// `Wallet.createRequest`.
    public func createRequest(
        amount: UInt64, payeeName: String = "", expiresIn: UInt64 = 600, hints: [TransportHint] = [],
        sessionKey: PublicKeyBytes? = nil
    ) async throws(WalletError) -> PaymentRequest {
        try await run { w throws(WalletError) in
            try w.createRequest(amount: amount, payeeName: payeeName, expiresIn: expiresIn, hints: hints, sessionKey: sessionKey)
        }
    }

    /// `Wallet.receive(_:for:method:transcriptHash:)`: verification and the write run off the actor.
    public func receive(
        _ bundleBytes: [UInt8], for nonce: Nonce, method: PaymentMethod = .qr, transcriptHash: Digest32? = nil
    ) async throws(WalletError) -> ReceivedPayment {
        try await run { w throws(WalletError) in
            try w.receive(bundleBytes, for: nonce, method: method, transcriptHash: transcriptHash)
        }
    }

    /// `Wallet.receive(_:method:transcriptHash:)`: the request is found from the payment itself.
    public func receive(
        _ bundleBytes: [UInt8], method: PaymentMethod = .qr, transcriptHash: Digest32? = nil
    ) async throws(WalletError) -> ReceivedPayment {
        try await run { w throws(WalletError) in try w.receive(bundleBytes, method: method, transcriptHash: transcriptHash) }
    }

    /// `Wallet.pendingPayments()`.
    public func pendingPayments() async throws(WalletError) -> [OutgoingPayment] {
        try await run { w throws(WalletError) in try w.pendingPayments() }
    }

    /// `Wallet.outgoingPayment(for:)`.
    public func outgoingPayment(for nonce: Nonce) async throws(WalletError) -> OutgoingPayment? {
        try await run { w throws(WalletError) in try w.outgoingPayment(for: nonce) }
    }

    /// `Wallet.resolvePending`.
    public func resolvePending(_ nonce: Nonce, _ resolution: PendingResolution) async throws(WalletError) {
        try await run { w throws(WalletError) in try w.resolvePending(nonce, resolution) }
    }

    /// `Wallet.history`.
    public func history(_ filter: HistoryFilter = HistoryFilter()) async throws(WalletError) -> [HistoryEntry] {
        try await run { w throws(WalletError) in try w.history(filter) }
    }

    /// `Wallet.historyDetail`.
    public func historyDetail(_ id: Int64) async throws(WalletError) -> HistoryDetail? {
        try await run { w throws(WalletError) in try w.historyDetail(id) }
    }

    /// `Wallet.exportBackup`: scrypt runs off the caller's actor.
    public func exportBackup(passphrase: String, cost: PassphraseBox.Cost = .interactive) async throws(WalletError) -> [UInt8] {
        try await run { w throws(WalletError) in try w.exportBackup(passphrase: passphrase, cost: cost) }
    }

    /// `Wallet.exchange(_:for:)`.
    @discardableResult
    public func exchange(_ refs: [StateRef], for chains: [Chain]) async throws(WalletError) -> UInt64 {
        try await run { w throws(WalletError) in try w.exchange(refs, for: chains) }
    }

    /// `Wallet.applyRestoreExchange(_:fresh:)`.
    @discardableResult
    public func applyRestoreExchange(
        _ outcomes: [StateRef: RestoreOutcome], fresh chains: [Chain]
    ) async throws(WalletError)
        -> UInt64
    {
        try await run { w throws(WalletError) in try w.applyRestoreExchange(outcomes, fresh: chains) }
    }
}
