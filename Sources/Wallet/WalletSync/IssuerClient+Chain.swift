import Foundation
import OpenAPIRuntime
import WalletAPI

extension IssuerClientError {
    /// The code of `chainNotConfigured`: the issuer runs without chain settlement.
    public static let chainNotConfiguredCode = "chain_not_configured"

    /// The issuer does not settle on a chain (its chain routes answer 404 `chain_not_configured`).
    public static var chainNotConfigured: IssuerClientError {
        IssuerClientError(
            code: chainNotConfiguredCode,
            "This issuer does not settle on a chain: deposits from and withdrawals to a chain address are not available with it.",
            status: 404)
    }

    /// True when the issuer has no chain settlement (see `chainNotConfigured`).
    public var isChainNotConfigured: Bool { code == Self.chainNotConfiguredCode }
}

/// Deposits from and withdrawals to an EVM chain (the issuer's chain settlement; docs/server.md).
extension IssuerClient {
    /// How to deposit on chain into the logged-in account. Throws
    /// `IssuerClientError.chainNotConfigured` when the issuer does not settle on a chain.
    public func depositInstructions() async throws -> DepositInstructions {
        switch try await call({ try await client.getDepositInstructions() }) {
        case .ok(let ok):
            let body = try ok.body.json
            guard let chainID = UInt64(body.chainId) else {
                throw IssuerClientError(
                    code: "bad_chain_instructions", "The issuer sent a chain id that is not a number ('\(body.chainId)').")
            }
            return DepositInstructions(
                chainID: chainID, escrow: body.escrow, token: body.token, accountRef: body.accountRef, decimals: body.decimals,
                confirmations: body.confirmations, currency: body.currency)
        case .default(let status, let problem): throw Self.chainError(status, try? problem.body.applicationProblemJson)
        }
    }

    /// Debits `amount` from the account into a withdrawal the issuer pays out to `to` on chain.
    /// A retry with the same `idempotencyKey` answers the same withdrawal (debited once).
    public func withdraw(amount: UInt64, to address: String, idempotencyKey: String) async throws -> ChainWithdrawal {
        let out = try await call {
            try await client.requestWithdrawal(
                headers: .init(idempotencyKey: idempotencyKey),
                body: .json(.init(amount: try Self.wireAmount(amount), to: address)))
        }
        switch out {
        case .accepted(let accepted): return try Self.withdrawal(try accepted.body.json)
        case .default(let status, let problem): throw Self.chainError(status, try? problem.body.applicationProblemJson)
        }
    }

    /// The account's withdrawals, newest first (at most `limit`, 1…200).
    public func withdrawals(limit: Int = 50) async throws -> [ChainWithdrawal] {
        switch try await call({ try await client.listWithdrawals(query: .init(limit: limit)) }) {
        case .ok(let ok): return try ok.body.json.withdrawals.map(Self.withdrawal)
        case .default(let status, let problem): throw Self.chainError(status, try? problem.body.applicationProblemJson)
        }
    }

    /// One of the account's withdrawals (`withdrawal_not_found` for an unknown id or another
    /// account's).
    public func withdrawal(id: String) async throws -> ChainWithdrawal {
        switch try await call({ try await client.getWithdrawal(path: .init(withdrawalId: id)) }) {
        case .ok(let ok): return try Self.withdrawal(try ok.body.json)
        case .default(let status, let problem): throw Self.chainError(status, try? problem.body.applicationProblemJson)
        }
    }

    /// The issuer's refusal; its `chain_not_configured` in the wallet's words (the server's
    /// detail names routes, not what the person can do).
    static func chainError(_ status: Int, _ problem: Components.Schemas.Problem?) -> IssuerClientError {
        if problem?.code == IssuerClientError.chainNotConfiguredCode { return .chainNotConfigured }
        return IssuerClientError(status, problem)
    }

    static func withdrawal(_ w: Components.Schemas.ChainWithdrawal) throws -> ChainWithdrawal {
        guard let amount = UInt64(exactly: w.amount) else {
            throw IssuerClientError(code: "bad_withdrawal", "The issuer sent a withdrawal with a negative amount.")
        }
        let status: ChainWithdrawal.Status =
            switch w.status {
            case .pending: .pending
            case .sent: .sent
            case .paid: .paid
            case .refused: .refused
            }
        return ChainWithdrawal(
            id: w.id, amount: amount, to: w.to, status: status, txHash: w.txHash, reason: w.reason, createdAt: w.createdAt,
            updatedAt: w.updatedAt)
    }
}
