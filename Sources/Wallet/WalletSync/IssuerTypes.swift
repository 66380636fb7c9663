import Foundation
import OpenAPIRuntime
import WalletAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The issuer's view of the logged-in account (`GET /v1/account`), in the project's own terms so
/// clients never see the generated API types.
public struct AccountSummary: Sendable, Equatable {
    public var id: Int64
    public var email: String
    public var role: String
    /// Frozen after a double spend was charged to it: the issuer refuses its purchases.
    public var frozen: Bool
    /// Settled balance in minor units; negative only after a double spend.
    public var balance: Int64
    /// Value of notes this account bought that are not yet redeemed or refunded.
    public var outstandingNotes: Int64

    public init(id: Int64, email: String, role: String, frozen: Bool, balance: Int64, outstandingNotes: Int64) {
        self.id = id
        self.email = email
        self.role = role
        self.frozen = frozen
        self.balance = balance
        self.outstandingNotes = outstandingNotes
    }

    init(_ info: Components.Schemas.AccountInfo) {
        self.init(
            id: info.id, email: info.email, role: info.role, frozen: info.frozen, balance: info.balance,
            outstandingNotes: info.outstandingNotes)
    }
}

/// What a login or a resume returns. The refresh token rotates: keep the newest one, the one it
/// replaced stops working.
public struct LoginTokens: Sendable, Equatable {
    public var accessToken: String
    public var refreshToken: String
    /// Seconds until the access token expires.
    public var expiresIn: Int
    public var accountId: Int64

    public init(accessToken: String, refreshToken: String, expiresIn: Int, accountId: Int64) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.accountId = accountId
    }

    init(_ tokens: Components.Schemas.Tokens) {
        self.init(
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresIn: tokens.expiresIn,
            accountId: tokens.accountId)
    }
}

/// The issuer's public configuration (`GET /v1/config`): currency, quick amounts and the signed
/// trust material a wallet pins (`IssuerClient.installTrust`).
public struct IssuerConfiguration: Sendable, Equatable {
    /// ISO 4217 code, e.g. "EUR".
    public var currency: String
    public var minorUnitDigits: Int
    /// Suggested purchase amounts in minor units.
    public var quickAmounts: [Int64]
    /// The authority public key, the signed keyset and the signed limits, raw bytes.
    public var authority: [UInt8]
    public var keyset: [UInt8]
    public var limits: [UInt8]
}

extension IssuerClientError {
    /// The code of `unreachable`: the request never got an answer (no route, refused, timed
    /// out, connection lost). For a purchase the outcome is then unknown.
    public static let unreachableCode = "server_unreachable"

    /// The issuer could not be reached; `reason` is the system's words.
    public static func unreachable(_ reason: String) -> IssuerClientError {
        IssuerClientError(
            code: unreachableCode, "Cannot reach the issuer (\(reason)). Check the address and your network, then try again.")
    }

    /// True when no answer came back (see `unreachable`): retry later, nothing is known to have failed.
    public var isUnreachable: Bool { status == 0 && code == Self.unreachableCode }
}

extension IssuerClient {
    /// Runs one generated-client call, turning the runtime's `ClientError` wrapper into what
    /// clients can act on: a network failure becomes `IssuerClientError.unreachable`, any other
    /// cause is rethrown as itself (so no client needs OpenAPIRuntime to read an error).
    func call<T>(_ operation: () async throws -> T) async throws -> T {
        do { return try await operation() } catch let error as ClientError { throw Self.unwrap(error) }
    }

    static func unwrap(_ error: ClientError) -> any Error {
        let cause = error.underlyingError
        if cause is URLError { return IssuerClientError.unreachable((cause as NSError).localizedDescription) }
        let ns = cause as NSError
        if ns.domain == NSURLErrorDomain { return IssuerClientError.unreachable(ns.localizedDescription) }
        return cause
    }
}
