import Foundation
import IssuerCore
import Metrics
import OfflineNotes
import OpenAPIRuntime
import Prometheus
import WalletAPI

/// The server's metrics, in a Prometheus registry (swift-prometheus). The executable also
/// bootstraps swift-metrics with this registry, so Hummingbird's request metrics land here too.
public final class IssuerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    let float: Prometheus.Gauge

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        float = registry.makeGauge(
            descriptor: .init(
                namespace: "offline_wallet", metricName: "outstanding_float", unitName: "minor_units",
                helpText: "Issued notes not yet redeemed or refunded"))
    }

    /// Increments `offline_wallet_<name>_total`.
    func increment(_ name: String, help: String, _ labels: [(String, String)] = []) {
        registry.makeCounter(
            descriptor: .init(namespace: "offline_wallet", metricName: name, unitName: "total", helpText: help), labels: labels
        ).increment()
    }

    /// Prometheus text exposition, with the float read fresh from the database.
    func render(float value: Int64) -> String {
        float.set(to: Double(value))
        return registry.emitToString()
    }
}

/// Limits applied to each account's writes (per minute).
public struct AccountLimits: Sendable {
    public var writesPerMinute: Int
    public init(writesPerMinute: Int = 600) { self.writesPerMinute = writesPerMinute }
}

/// The generated `APIProtocol`, implemented on top of `Issuer`.
public struct IssuerAPI: APIProtocol {
    let issuer: Issuer
    let tokens: AccessTokens
    let metrics: IssuerMetrics
    let limits: AccountLimits
    let quickAmounts: [Int64]
    /// Escrow settlement; nil when the server runs without --escrow-rpc.
    let escrow: (any EscrowMonitor)?
    let escrowCounters = EscrowCounters()

    public init(
        issuer: Issuer, tokens: AccessTokens, metrics: IssuerMetrics, limits: AccountLimits = .init(),
        quickAmounts: [Int64] = [500, 1_000, 2_000, 5_000],
        escrow: (any EscrowMonitor)? = nil
    ) {
        self.issuer = issuer
        self.tokens = tokens
        self.metrics = metrics
        self.limits = limits
        self.quickAmounts = quickAmounts
        self.escrow = escrow
    }

    // MARK: Helpers

    func caller() throws -> AccessTokens.Claims {
        guard let claims = RequestAuth.claims else { throw HTTPProblem.unauthorized }
        return claims
    }

    /// The authenticated caller, after counting one write against its per-account limit (429
    /// with Retry-After when the minute's writes are used up).
    func callerCountingOneWrite() async throws -> AccessTokens.Claims {
        let claims = try caller()
        if let retry = try await issuer.rateLimit(
            bucket: "acct-write:\(claims.sub)", limit: limits.writesPerMinute, windowSeconds: 60)
        {
            throw HTTPProblem(
                .tooManyRequests, code: "rate_limited", detail: "Too many writes; retry in \(retry) s.", retryAfter: retry)
        }
        return claims
    }

    func admin() throws -> AccessTokens.Claims {
        let claims = try caller()
        guard claims.role == "admin" else { throw HTTPProblem.forbidden }
        return claims
    }

    func bytes(_ text: String, field: String) throws -> [UInt8] {
        guard let bytes = Base64URL.decode(text) else {
            throw HTTPProblem(.badRequest, code: "invalid_field", detail: "'\(field)' is not base64url.", field: field)
        }
        return bytes
    }

    /// A query parameter checked against the range openapi.yaml states for it (the generated
    /// code decodes types, not ranges): out of range is the client's mistake, answered 400,
    /// never quietly clamped to something it did not ask for.
    func query<T: BinaryInteger>(_ value: T?, _ name: String, in range: ClosedRange<T>) throws -> T? {
        guard let value else { return nil }
        guard range.contains(value) else {
            let bound =
                range.upperBound == T(exactly: Int64.max)
                ? "at least \(range.lowerBound)" : "from \(range.lowerBound) to \(range.upperBound)"
            throw HTTPProblem(
                .badRequest, code: "invalid_parameter", detail: "Query parameter '\(name)' must be \(bound); got \(value).",
                field: name)
        }
        return value
    }

    /// Ranges of the query parameters, as openapi.yaml states them.
    enum QueryRange {
        static let historyLimit = 1...200
        static let auditLimit = 1...1_000
        /// Journal and audit ids start at 1.
        static let before: ClosedRange<Int64> = 1...Int64.max
    }

    func amount(_ value: Int64, field: String = "amount") throws -> UInt64 {
        guard value > 0 else {
            throw HTTPProblem(.badRequest, code: "invalid_field", detail: "'\(field)' must be positive.", field: field)
        }
        return UInt64(value)
    }

    static func info(_ a: Account) -> Components.Schemas.AccountInfo {
        .init(id: a.id, email: a.email, role: a.role, frozen: a.frozen, balance: a.balance, outstandingNotes: a.outstandingNotes)
    }

    func tokens(for account: Account, refresh: String) -> Components.Schemas.Tokens {
        .init(
            accessToken: tokens.issue(account: account.id, role: account.role), refreshToken: refresh,
            expiresIn: Int(tokens.lifetime), accountId: account.id)
    }

    // MARK: Public

    public func health(_ input: Operations.Health.Input) async throws -> Operations.Health.Output {
        _ = try await issuer.outstandingFloat()
        return .ok(.init(body: .json(.init(status: "ok"))))
    }

    /// Admin only on the API's listener; the separate metrics listener (`MetricsListener`)
    /// serves the same text without a token.
    public func metrics(_ input: Operations.Metrics.Input) async throws -> Operations.Metrics.Output {
        _ = try admin()
        return .ok(.init(body: .plainText(HTTPBody(try await renderMetrics()))))
    }

    /// The Prometheus text: request metrics, the issuer's counters, the float and escrow gauges.
    public func renderMetrics() async throws -> String {
        let float = try await issuer.outstandingFloat()
        try await updateEscrowMetrics()
        return metrics.render(float: float)
    }

    public func getConfig(_ input: Operations.GetConfig.Input) async throws -> Operations.GetConfig.Output {
        .ok(
            .init(
                body: .json(
                    .init(
                        currency: issuer.config.currency.code, minorUnitDigits: issuer.config.currency.minorUnitDigits,
                        quickAmounts: quickAmounts, authority: Base64URL.encode(issuer.keyring.authority.publicKey.bytes),
                        keyset: Base64URL.encode(issuer.keyset.encoded), limits: Base64URL.encode(issuer.limits.encoded)))))
    }

    // MARK: Auth

    public func register(_ input: Operations.Register.Input) async throws -> Operations.Register.Output {
        guard case .json(let body) = input.body else {
            throw HTTPProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send JSON.")
        }
        let id = try await issuer.register(email: body.email, password: body.password)
        metrics.increment("registrations", help: "Accounts registered")
        return .created(.init(body: .json(Self.info(try await issuer.account(id)))))
    }

    public func login(_ input: Operations.Login.Input) async throws -> Operations.Login.Output {
        guard case .json(let body) = input.body else {
            throw HTTPProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send JSON.")
        }
        if let retry = try await issuer.rateLimit(bucket: Issuer.loginBucket(email: body.email), limit: 10, windowSeconds: 300) {
            throw HTTPProblem(
                .tooManyRequests, code: "rate_limited", detail: "Too many login attempts; retry in \(retry) s.", retryAfter: retry
            )
        }
        let account = try await issuer.login(email: body.email, password: body.password)
        let refresh = try await issuer.issueRefreshToken(account: account.id)
        return .ok(.init(body: .json(tokens(for: account, refresh: refresh))))
    }

    public func refresh(_ input: Operations.Refresh.Input) async throws -> Operations.Refresh.Output {
        guard case .json(let body) = input.body else {
            throw HTTPProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send JSON.")
        }
        let (accountID, next) = try await issuer.rotateRefreshToken(body.refreshToken)
        return .ok(.init(body: .json(tokens(for: try await issuer.account(accountID), refresh: next))))
    }

    public func logout(_ input: Operations.Logout.Input) async throws -> Operations.Logout.Output {
        guard case .json(let body) = input.body else {
            throw HTTPProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send JSON.")
        }
        try await issuer.revokeRefreshToken(body.refreshToken)
        return .noContent(.init())
    }

    // MARK: Account

    public func getAccount(_ input: Operations.GetAccount.Input) async throws -> Operations.GetAccount.Output {
        .ok(.init(body: .json(Self.info(try await issuer.account(try caller().sub)))))
    }

    public func getHistory(_ input: Operations.GetHistory.Input) async throws -> Operations.GetHistory.Output {
        let claims = try caller()
        let limit = try query(input.query.limit, "limit", in: QueryRange.historyLimit) ?? 50
        let before = try query(input.query.before, "before", in: QueryRange.before)
        let entries = try await issuer.history(account: claims.sub, limit: limit, before: before, kind: input.query.kind)
        return .ok(
            .init(
                body: .json(
                    .init(
                        entries: entries.map {
                            .init(
                                id: $0.id, kind: $0.kind, amount: $0.amount, reference: $0.reference.map(Base64URL.encode),
                                createdAt: $0.createdAt)
                        },
                        nextBefore: entries.count == limit ? entries.last?.id : nil))))
    }

    public func fundAccount(_ input: Operations.FundAccount.Input) async throws -> Operations.FundAccount.Output {
        guard case .json(let body) = input.body else {
            throw HTTPProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send JSON.")
        }
        let claims = try await callerCountingOneWrite()
        return .ok(.init(body: .json(Self.info(try await issuer.fund(account: claims.sub, amount: try amount(body.amount))))))
    }

    public func keyChallenge(_ input: Operations.KeyChallenge.Input) async throws -> Operations.KeyChallenge.Output {
        let claims = try caller()
        return .ok(
            .init(
                body: .json(.init(challenge: Base64URL.encode(issuer.keyChallenge(account: claims.sub)), accountId: claims.sub))))
    }

    public func registerWalletKey(_ input: Operations.RegisterWalletKey.Input) async throws -> Operations.RegisterWalletKey.Output
    {
        guard case .json(let body) = input.body else {
            throw HTTPProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send JSON.")
        }
        let claims = try await callerCountingOneWrite()
        guard let key = PublicKeyBytes(bytes: try bytes(body.publicKey, field: "publicKey")) else {
            throw HTTPProblem(
                .badRequest, code: "invalid_field", detail: "'publicKey' must be a 33-byte compressed P-256 key.",
                field: "publicKey")
        }
        try await issuer.registerWalletKey(
            account: claims.sub, key: key, challenge: try bytes(body.challenge, field: "challenge"),
            signature: try bytes(body.signature, field: "signature"))
        return .noContent(.init())
    }

    // MARK: Notes

    public func purchaseNotes(_ input: Operations.PurchaseNotes.Input) async throws -> Operations.PurchaseNotes.Output {
        guard case .json(let body) = input.body else {
            throw HTTPProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send JSON.")
        }
        let claims = try await callerCountingOneWrite()
        guard let key = PublicKeyBytes(bytes: try bytes(body.walletKey, field: "walletKey")) else {
            throw HTTPProblem(
                .badRequest, code: "invalid_field", detail: "'walletKey' must be a 33-byte compressed P-256 key.",
                field: "walletKey")
        }
        let chains = try await issuer.purchase(
            account: claims.sub, walletKey: key, amount: try amount(body.amount), idempotencyKey: input.headers.idempotencyKey)
        metrics.increment("purchases", help: "Note purchases")
        return .ok(.init(body: .json(.init(chains: chains.map { Base64URL.encode($0.encoded) }))))
    }

    public func redeemNotes(_ input: Operations.RedeemNotes.Input) async throws -> Operations.RedeemNotes.Output {
        guard case .json(let body) = input.body else {
            throw HTTPProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send JSON.")
        }
        let claims = try await callerCountingOneWrite()
        let chains = try body.chains.enumerated().map { try bytes($0.element, field: "chains[\($0.offset)]") }
        let results = try await issuer.redeem(account: claims.sub, chains: chains)
        for r in results {
            metrics.increment("redemptions", help: "Chains redeemed, by result", [("result", Self.result(r).status.rawValue)])
        }
        return .ok(.init(body: .json(.init(results: results.map(Self.result)))))
    }

    static func result(_ r: RedeemResult) -> Components.Schemas.RedeemResult {
        switch r {
        case .credited(let a): .init(status: .credited, amount: Int64(a))
        case .alreadyCredited: .init(status: .alreadyCredited, amount: 0)
        case .conflict(let id, let credited): .init(status: .conflict, amount: Int64(credited), fraudCase: id)
        case .invalid(let code, let reason): .init(status: .invalid, amount: 0, code: code, reason: reason)
        }
    }

    public func refreshNotes(_ input: Operations.RefreshNotes.Input) async throws -> Operations.RefreshNotes.Output {
        guard case .json(let body) = input.body else {
            throw HTTPProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send JSON.")
        }
        let claims = try await callerCountingOneWrite()
        guard let key = PublicKeyBytes(bytes: try bytes(body.walletKey, field: "walletKey")) else {
            throw HTTPProblem(
                .badRequest, code: "invalid_field", detail: "'walletKey' must be a 33-byte compressed P-256 key.",
                field: "walletKey")
        }
        let chains = try body.chains.enumerated().map { try bytes($0.element, field: "chains[\($0.offset)]") }
        let (results, notes) = try await issuer.refresh(
            account: claims.sub, walletKey: key, chains: chains, restore: body.restore ?? false)
        return .ok(
            .init(body: .json(.init(results: results.map(Self.result), chains: notes.map { Base64URL.encode($0.encoded) }))))
    }

    public func announceTransfer(_ input: Operations.AnnounceTransfer.Input) async throws -> Operations.AnnounceTransfer.Output {
        guard case .json(let body) = input.body else {
            throw HTTPProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send JSON.")
        }
        let claims = try await callerCountingOneWrite()
        return .ok(
            .init(
                body: .json(
                    Self.result(try await issuer.announce(account: claims.sub, chain: try bytes(body.chain, field: "chain"))))))
    }

    public func reportFraudProof(_ input: Operations.ReportFraudProof.Input) async throws -> Operations.ReportFraudProof.Output {
        guard case .json(let body) = input.body else {
            throw HTTPProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send JSON.")
        }
        let claims = try await callerCountingOneWrite()
        let result = try await issuer.reportFraud(
            account: claims.sub, chain: try bytes(body.chain, field: "chain"), first: try bytes(body.first, field: "first"),
            second: try bytes(body.second, field: "second"))
        return .ok(.init(body: .json(Self.result(result))))
    }

    public func checkStates(_ input: Operations.CheckStates.Input) async throws -> Operations.CheckStates.Output {
        guard case .json(let body) = input.body else {
            throw HTTPProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send JSON.")
        }
        _ = try caller()
        let refs = try body.states.enumerated().map { i, s -> StateRef in
            guard let ref = StateRef(bytes: try bytes(s, field: "states[\(i)]")) else {
                throw HTTPProblem(
                    .badRequest, code: "invalid_field", detail: "'states[\(i)]' must be 32 bytes.", field: "states[\(i)]")
            }
            return ref
        }
        let status = try await issuer.stateStatus(refs)
        return .ok(
            .init(
                body: .json(
                    .init(
                        states: refs.map { ref in
                            .init(
                                state: Base64URL.encode(ref.bytes),
                                status: .init(rawValue: (status[ref] ?? .unknown).rawValue) ?? .unknown)
                        }))))
    }

    public func sendOnline(_ input: Operations.SendOnline.Input) async throws -> Operations.SendOnline.Output {
        guard case .json(let body) = input.body else {
            throw HTTPProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send JSON.")
        }
        let claims = try await callerCountingOneWrite()
        let account = try await issuer.send(
            from: claims.sub, toEmail: body.to, amount: try amount(body.amount), idempotencyKey: input.headers.idempotencyKey)
        return .ok(.init(body: .json(Self.info(account))))
    }

    // MARK: Admin

    public func listFraudCases(_ input: Operations.ListFraudCases.Input) async throws -> Operations.ListFraudCases.Output {
        _ = try admin()
        let cases = try await issuer.fraudCases()
        return .ok(
            .init(
                body: .json(
                    .init(
                        cases: cases.map {
                            .init(
                                id: $0.id, state: Base64URL.encode($0.state.bytes),
                                cheaterKey: Base64URL.encode($0.cheaterKey.bytes),
                                cheaterAccount: $0.cheaterAccount, firstKind: $0.firstKind,
                                firstTransfer: $0.firstTransfer.map(Base64URL.encode),
                                secondTransfer: $0.secondTransfer.map(Base64URL.encode), chain: Base64URL.encode($0.chain),
                                beneficiaryAccount: $0.beneficiaryAccount, amount: Int64($0.amount), status: $0.status,
                                createdAt: Int64($0.createdAt))
                        }))))
    }

    public func listDebtors(_ input: Operations.ListDebtors.Input) async throws -> Operations.ListDebtors.Output {
        _ = try admin()
        return .ok(.init(body: .json(.init(accounts: try await issuer.accountsInDebt().map(Self.info)))))
    }

    public func getFloat(_ input: Operations.GetFloat.Input) async throws -> Operations.GetFloat.Output {
        _ = try admin()
        return .ok(
            .init(body: .json(.init(outstanding: try await issuer.outstandingFloat(), currency: issuer.config.currency.code))))
    }

    public func getAuditLog(_ input: Operations.GetAuditLog.Input) async throws -> Operations.GetAuditLog.Output {
        _ = try admin()
        let entries = try await issuer.auditLog(
            limit: try query(input.query.limit, "limit", in: QueryRange.auditLimit) ?? 100,
            before: try query(input.query.before, "before", in: QueryRange.before))
        return .ok(
            .init(
                body: .json(
                    .init(
                        entries: entries.map {
                            .init(id: $0.id, actor: $0.actor, action: $0.action, detail: $0.detail, createdAt: $0.createdAt)
                        }))))
    }

    public func freezeAccount(_ input: Operations.FreezeAccount.Input) async throws -> Operations.FreezeAccount.Output {
        guard case .json(let body) = input.body else {
            throw HTTPProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send JSON.")
        }
        let claims = try admin()
        try await issuer.setFrozen(body.frozen, account: input.path.accountId, by: claims.sub, reason: body.reason)
        return .noContent(.init())
    }
}
