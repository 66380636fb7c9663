import CrashPoints
import Foundation
import OfflineNotes
import OpenAPIRuntime
import OpenAPIURLSession
import Synchronization
import WalletAPI
import WalletCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What went wrong talking to the issuer, in words a user can act on.
public struct IssuerClientError: Error, CustomStringConvertible, Sendable {
    public let status: Int
    public let code: String
    public let description: String

    init(_ status: Int, _ problem: Components.Schemas.Problem?) {
        self.status = status
        code = problem?.code ?? "http_\(status)"
        description = problem?.detail ?? "The server answered HTTP \(status)."
    }

    /// A refusal made here, without the issuer; `status` 400 says it is final (nothing was sent,
    /// so nothing was charged), 0 that the outcome is unknown.
    init(code: String, _ description: String, status: Int = 0) {
        self.status = status
        self.code = code
        self.description = description
    }
}

/// A wallet's connection to the issuer: login, key registration, purchase, redemption.
/// Shared by the command line, the app and tests; transport injected (URLSession by default).
public final class IssuerClient: Sendable {
    public let serverURL: URL
    private final class TokenBox: Sendable {
        let value = Mutex<String?>(nil)
    }

    private let token = TokenBox()
    let client: Client

    public init(serverURL: URL, transport: any ClientTransport = URLSessionTransport()) {
        self.serverURL = serverURL
        let token = self.token
        client = Client(serverURL: serverURL, transport: transport, middlewares: [BearerToken { token.value.withLock { $0 } }])
    }

    /// The generated client, for this package's tests and tools that exercise the raw API (not
    /// public: clients use the typed methods below, whose errors are unwrapped, see `call`).
    package var api: Client { client }

    /// The issuer's configuration; malformed trust material is refused here (`bad_config`).
    public func config() async throws -> IssuerConfiguration {
        let config = try await call { try await client.getConfig() }.ok.body.json
        guard let authority = Base64URL.decode(config.authority), let keyset = Base64URL.decode(config.keyset),
            let limits = Base64URL.decode(config.limits)
        else { throw IssuerClientError(code: "bad_config", "The server's configuration is malformed.") }
        return IssuerConfiguration(
            currency: config.currency, minorUnitDigits: config.minorUnitDigits, quickAmounts: config.quickAmounts,
            authority: authority, keyset: keyset, limits: limits)
    }

    /// Installs (first time: pins) the issuer's authority, keyset and limits into the wallet.
    public func installTrust(into wallet: Wallet) async throws {
        let config = try await config()
        guard let authority = PublicKeyBytes(bytes: config.authority)
        else { throw IssuerClientError(code: "bad_config", "The server's configuration is malformed.") }
        try wallet.installTrust(authority: authority, keyset: config.keyset, limits: config.limits)
    }

    @discardableResult
    public func register(email: String, password: String) async throws -> AccountSummary {
        switch try await call({ try await client.register(body: .json(.init(email: email, password: password))) }) {
        case .created(let created): return AccountSummary(try created.body.json)
        case .default(let status, let problem): throw IssuerClientError(status, try? problem.body.applicationProblemJson)
        }
    }

    /// Logs in; later calls carry the access token. Returns the tokens (keep the refresh token).
    @discardableResult
    public func login(email: String, password: String) async throws -> LoginTokens {
        switch try await call({ try await client.login(body: .json(.init(email: email, password: password))) }) {
        case .ok(let ok):
            let tokens = LoginTokens(try ok.body.json)
            token.value.withLock { $0 = tokens.accessToken }
            return tokens
        case .default(let status, let problem): throw IssuerClientError(status, try? problem.body.applicationProblemJson)
        }
    }

    /// Revokes a refresh token at the issuer. A token the issuer no longer knows (already
    /// revoked or expired, HTTP 401) counts as revoked: nothing is left to revoke.
    public func logout(refreshToken: String) async throws {
        switch try await call({ try await client.logout(body: .json(.init(refreshToken: refreshToken))) }) {
        case .noContent: return
        case .default(let status, _) where status == 401: return
        case .default(let status, let problem): throw IssuerClientError(status, try? problem.body.applicationProblemJson)
        }
    }

    public func useAccessToken(_ value: String?) { token.value.withLock { $0 = value } }

    public func account() async throws -> AccountSummary {
        switch try await call({ try await client.getAccount() }) {
        case .ok(let ok): return AccountSummary(try ok.body.json)
        case .default(let status, let problem): throw IssuerClientError(status, try? problem.body.applicationProblemJson)
        }
    }

    /// Registers the wallet's key to the logged-in account, proving possession.
    public func registerKey(of wallet: Wallet) async throws {
        let challenge: Components.Schemas.Challenge
        switch try await call({ try await client.keyChallenge() }) {
        case .ok(let ok): challenge = try ok.body.json
        case .default(let status, let problem): throw IssuerClientError(status, try? problem.body.applicationProblemJson)
        }
        guard let raw = Base64URL.decode(challenge.challenge) else {
            throw IssuerClientError(code: "bad_challenge", "Malformed challenge.")
        }
        let message = KeyRegistration.message(challenge: raw, account: challenge.accountId)
        let signature = try wallet.identity.signer.sign(message)
        let out = try await call {
            try await client.registerWalletKey(
                body: .json(
                    .init(
                        publicKey: Base64URL.encode(wallet.publicKey.bytes), challenge: challenge.challenge,
                        signature: Base64URL.encode(signature))))
        }
        if case .default(let status, let problem) = out {
            throw IssuerClientError(status, try? problem.body.applicationProblemJson)
        }
    }

    /// An amount as the API carries it (int64). One above 2^63 − 1 is refused here, before
    /// anything is sent: converting it would trap, and no issuer could take it anyway.
    static func wireAmount(_ amount: UInt64) throws -> Int64 {
        guard let value = Int64(exactly: amount) else {
            throw IssuerClientError(code: "invalid_amount", "The amount must be at most 2^63 − 1 minor units.", status: 400)
        }
        return value
    }

    /// Development funding (servers started with --dev-funding).
    public func fund(_ amount: UInt64) async throws {
        if case .default(let status, let problem) = try await call({
            try await client.fundAccount(body: .json(.init(amount: try Self.wireAmount(amount))))
        }) {
            throw IssuerClientError(status, try? problem.body.applicationProblemJson)
        }
    }

    /// Buys notes for the wallet and deposits them. `idempotencyKey` makes a retry safe.
    @discardableResult
    public func purchase(_ amount: UInt64, into wallet: Wallet, idempotencyKey: String = UUID().uuidString) async throws -> UInt64
    {
        let out = try await call {
            try await client.purchaseNotes(
                headers: .init(idempotencyKey: idempotencyKey),
                body: .json(.init(walletKey: Base64URL.encode(wallet.publicKey.bytes), amount: try Self.wireAmount(amount))))
        }
        switch out {
        case .ok(let ok):
            let chains = try ok.body.json.chains.map { text -> Chain in
                guard let bytes = Base64URL.decode(text) else {
                    throw IssuerClientError(code: "bad_note", "The server sent a malformed note.")
                }
                return try Chain(decoding: bytes)
            }
            CrashPoints.reach(.walletPurchaseAnswered)
            return try wallet.deposit(chains)
        case .default(let status, let problem): throw IssuerClientError(status, try? problem.body.applicationProblemJson)
        }
    }

    /// What one redemption pass did.
    public struct Redemption: Sendable {
        public var credited: UInt64 = 0
        public var redeemed = 0
        /// Fraud cases the issuer opened (or found) for notes this wallet handed in.
        public var fraudCases: [Int64] = []
        /// The value at stake in each of those cases: the note state this wallet handed in
        /// (the issuer's answer names the case, not its value).
        public var fraudAmounts: [Int64: UInt64] = [:]
        /// Notes the issuer refused, with its reason.
        public var refused: [(code: String, reason: String)] = []

        /// Nothing redeemed yet.
        public init() {}
    }

    /// Redeems every note the wallet received offline; returns the amount credited.
    public func redeemReceived(from wallet: Wallet) async throws -> UInt64 {
        try await redeem(from: wallet).credited
    }

    /// Redeems every note the wallet received offline, in batches of 64.
    public func redeem(from wallet: Wallet) async throws -> Redemption {
        let held = try wallet.states(.received).filter { !$0.needsOnlineCheck }
        var report = Redemption()
        guard !held.isEmpty else { return report }
        for start in stride(from: 0, to: held.count, by: 64) {
            let batch = Array(held[start..<min(start + 64, held.count)])
            switch try await call({
                try await client.redeemNotes(body: .json(.init(chains: batch.map { Base64URL.encode($0.chain.encoded) })))
            }) {
            case .ok(let ok):
                let results = try ok.body.json.results
                var settled: [StateRef] = []
                for (state, result) in zip(batch, results) {
                    report.credited += UInt64(max(0, result.amount))
                    report.redeemed += 1
                    if let fraudCase = result.fraudCase {
                        report.fraudCases.append(fraudCase)
                        report.fraudAmounts[fraudCase] = max(report.fraudAmounts[fraudCase] ?? 0, state.amount)
                        try wallet.recordFraudCase(fraudCase, for: state.ref)
                    }
                    if result.status == .invalid { report.refused.append((result.code ?? "invalid", result.reason ?? "")) }
                    // Credited, already credited, or credited despite a conflict (the payer double
                    // spent, the issuer paid this honest receiver): the value is in the account now.
                    if result.status == .credited || result.status == .alreadyCredited
                        || (result.status == .conflict && result.amount > 0)
                    {
                        settled.append(state.ref)
                    }
                }
                CrashPoints.reach(.walletSyncRedeemAnswered)
                try wallet.markSettled(settled)
                CrashPoints.reach(.walletSyncRedeemStored)
            case .default(let status, let problem): throw IssuerClientError(status, try? problem.body.applicationProblemJson)
            }
        }
        return report
    }

    /// Trades a refresh token for new tokens (the old refresh token stops working).
    @discardableResult
    public func resume(refreshToken: String) async throws -> LoginTokens {
        switch try await call({ try await client.refresh(body: .json(.init(refreshToken: refreshToken))) }) {
        case .ok(let ok):
            let tokens = LoginTokens(try ok.body.json)
            token.value.withLock { $0 = tokens.accessToken }
            return tokens
        case .default(let status, let problem): throw IssuerClientError(status, try? problem.body.applicationProblemJson)
        }
    }

    /// Asks the issuer about notes held back after a refresh whose answer was lost; applies the
    /// answer to the wallet. Returns how many were found spent.
    @discardableResult
    public func checkRestoredNotes(of wallet: Wallet) async throws -> (checked: Int, spent: Int) {
        try await resendHeldRefreshes(of: wallet)
        // Restored states are exchanged (`exchangeRestoredNotes`), never released by a check.
        let pending = try wallet.states().filter { $0.needsOnlineCheck && !$0.restored }
        let statuses = try await stateStatuses(pending.map(\.ref))
        var results: [StateRef: OnlineStateCheck] = [:]
        var spent = 0
        for state in pending {
            guard let status = statuses[state.ref] else { continue }
            // Only "unspent" frees a note; anything the issuer has seen spent is retired.
            let isUnspent = status == .unspent || status == .unknown
            results[state.ref] = isUnspent ? .unspent : .spent
            if !isUnspent { spent += 1 }
        }
        if !results.isEmpty { try wallet.applyOnlineCheck(results) }
        let checked = results.count
        return (checked, spent)
    }

    /// Sends again the refresh of notes held back after its answer was lost. The issuer may have
    /// committed it: then it took the notes and issued fresh ones, and a state check would only
    /// say "redeemed" — the held notes would be retired and the fresh ones never fetched, their
    /// value stranded until expiry. The same chains in the same batches (the held notes, oldest
    /// first, as `refreshNotes` sent them) make the same request, which the issuer answers with
    /// the notes it already issued (its purchase key is derived from the chains), charging
    /// nothing twice; a refresh that never arrived simply happens now. What the issuer refuses
    /// stays held for the state check.
    func resendHeldRefreshes(of wallet: Wallet) async throws {
        let held = try wallet.states(.available).filter { $0.needsOnlineCheck && !$0.restored }
        for start in stride(from: 0, to: held.count, by: 64) {
            let batch = Array(held[start..<min(start + 64, held.count)])
            let out = try await call {
                try await client.refreshNotes(
                    body: .json(
                        .init(
                            walletKey: Base64URL.encode(wallet.publicKey.bytes),
                            chains: batch.map { Base64URL.encode($0.chain.encoded) })))
            }
            switch out {
            case .ok(let ok):
                let body = try ok.body.json
                let exchanged = zip(batch, body.results).filter { $0.1.status == .credited || $0.1.status == .alreadyCredited }
                    .map(\.0.ref)
                try wallet.exchange(exchanged, for: try Self.chains(body.chains))
            case .default(let status, let problem) where status >= 500 || status == 429 || status == 401 || status == 403:
                // No answer about these notes: stop the sync before the state check, which
                // would retire them (the issuer may hold their fresh notes); the next sync
                // sends this refresh again.
                throw IssuerClientError(status, try? problem.body.applicationProblemJson)
            case .default:
                // A final refusal: the issuer did not take this refresh (a refresh it took is
                // answered again, not refused); the state check releases what it never saw spent.
                continue
            }
        }
    }

    /// Registers this wallet's signed but unconfirmed payments with the issuer, so a double
    /// spend of the same notes is caught even if the payee never syncs. Returns the fraud cases
    /// found, each with the value at stake: the announced payment's value in the chain the
    /// issuer found double spent (the issuer's answer names the case, not its value).
    public func announcePending(
        of wallet: Wallet
    ) async throws
        -> (announced: Int, fraudCases: [Int64], fraudAmounts: [Int64: UInt64])
    {
        var announced = 0
        var cases: [Int64] = []
        var amounts: [Int64: UInt64] = [:]
        for payment in try wallet.pendingPayments() {
            let bundle = try PaymentBundle(decoding: payment.bundle)
            for chain in bundle.chains {
                switch try await call({
                    try await client.announceTransfer(body: .json(.init(chain: Base64URL.encode(chain.encoded))))
                }) {
                case .ok(let ok):
                    let result = try ok.body.json
                    CrashPoints.reach(.walletSyncAnnounceAnswered)
                    if let fraudCase = result.fraudCase {
                        cases.append(fraudCase)
                        amounts[fraudCase] = max(amounts[fraudCase] ?? 0, chain.heldOutput?.amount ?? 0)
                    }
                    announced += 1
                case .default(let status, let problem): throw IssuerClientError(status, try? problem.body.applicationProblemJson)
                }
            }
        }
        return (announced, cases, amounts)
    }

    /// Exchanges the wallet's own notes that are close to expiry or to the hop limit, that have
    /// travelled, or that are too many (`Wallet.statesDueForRefresh`) for fresh ones of the
    /// same value. Returns the value refreshed.
    public func refreshNotes(of wallet: Wallet, expiringWithin seconds: UInt64, now: Timestamp) async throws -> UInt64 {
        let due = try wallet.statesDueForRefresh(now: now, expiringWithin: seconds)
        var refreshed: UInt64 = 0
        for start in stride(from: 0, to: due.count, by: 64) {
            let batch = Array(due[start..<min(start + 64, due.count)])
            // Held first: whatever happens to the request, these are not spent offline again.
            // The next sync's online check releases those the issuer did not take.
            try wallet.holdForOnlineCheck(batch.map(\.ref))
            CrashPoints.reach(.walletSyncRefreshHeld)
            let out = try await call {
                try await client.refreshNotes(
                    body: .json(
                        .init(
                            walletKey: Base64URL.encode(wallet.publicKey.bytes),
                            chains: batch.map { Base64URL.encode($0.chain.encoded) })))
            }
            switch out {
            case .ok(let ok):
                let body = try ok.body.json
                let fresh = try Self.chains(body.chains)
                let exchanged = zip(batch, body.results).filter { $0.1.status == .credited || $0.1.status == .alreadyCredited }
                    .map(\.0.ref)
                CrashPoints.reach(.walletSyncRefreshAnswered)
                refreshed += try wallet.exchange(exchanged, for: fresh)
                CrashPoints.reach(.walletSyncRefreshStored)
            case .default(let status, let problem): throw IssuerClientError(status, try? problem.body.applicationProblemJson)
            }
        }
        return refreshed
    }

    /// Hands the issuer every fraud proof this wallet caught offline; returns the fraud cases,
    /// each with the value at stake (the double-spent state's value, from the proof's chain).
    /// The issuer keeps one case per double spend, so reporting again is harmless.
    public func reportFraudProofs(of wallet: Wallet) async throws -> [(fraudCase: Int64, amount: UInt64)] {
        var cases: [(fraudCase: Int64, amount: UInt64)] = []
        for proof in try wallet.fraudProofs() {
            let report = Components.Schemas.FraudProofReport(
                chain: Base64URL.encode(proof.chain.encoded), first: Base64URL.encode(proof.first.encoded),
                second: Base64URL.encode(proof.second.encoded))
            switch try await call({ try await client.reportFraudProof(body: .json(report)) }) {
            case .ok(let ok):
                CrashPoints.reach(.walletSyncFraudReported)
                if let id = try ok.body.json.fraudCase { cases.append((id, proof.chain.heldOutput?.amount ?? 0)) }
            case .default(let status, let problem): throw IssuerClientError(status, try? problem.body.applicationProblemJson)
            }
        }
        return cases
    }

    /// Pays another account online (no notes move).
    public func sendOnline(
        to email: String, amount: UInt64, idempotencyKey: String = UUID().uuidString
    ) async throws -> AccountSummary {
        switch try await call({
            try await client.sendOnline(
                headers: .init(idempotencyKey: idempotencyKey), body: .json(.init(to: email, amount: try Self.wireAmount(amount)))
            )
        }) {
        case .ok(let ok): return AccountSummary(try ok.body.json)
        case .default(let status, let problem): throw IssuerClientError(status, try? problem.body.applicationProblemJson)
        }
    }
}
