import Foundation
import OpenAPIRuntime
import WalletAPI

extension IssuerClientError {
    /// The code of `escrowNotConfigured`: the issuer runs without escrow settlement.
    public static let escrowNotConfiguredCode = "escrow_not_configured"

    /// The issuer does not settle through an escrow (its escrow routes answer 404 `escrow_not_configured`).
    public static var escrowNotConfigured: IssuerClientError {
        IssuerClientError(
            code: escrowNotConfiguredCode,
            "This issuer does not settle through an escrow: deposits from and withdrawals to a blockchain address are not available with it.",
            status: 404)
    }

    /// True when the issuer has no escrow settlement (see `escrowNotConfigured`).
    public var isEscrowNotConfigured: Bool { code == Self.escrowNotConfiguredCode }
}

/// Deposits from and withdrawals to an EVM network (the issuer's escrow settlement; docs/server.md).
extension IssuerClient {
    /// How to deposit through the escrow into the logged-in account. Throws
    /// `IssuerClientError.escrowNotConfigured` when the issuer does not settle through an escrow.
    public func depositInstructions() async throws -> DepositInstructions {
        switch try await call({ try await client.getDepositInstructions() }) {
        case .ok(let ok):
            let body = try ok.body.json
            guard let chainID = UInt64(body.chainId) else {
                throw IssuerClientError(
                    code: "bad_escrow_instructions", "The issuer sent a chain id that is not a number ('\(body.chainId)').")
            }
            return DepositInstructions(
                chainID: chainID, escrow: body.escrow, token: body.token, accountRef: body.accountRef, decimals: body.decimals,
                confirmations: body.confirmations, currency: body.currency)
        case .default(let status, let problem): throw Self.escrowError(status, try? problem.body.applicationProblemJson)
        }
    }

    /// Debits `amount` from the account into a withdrawal the issuer pays out to `to` on the blockchain.
    /// A retry with the same `idempotencyKey` answers the same withdrawal (debited once).
    public func withdraw(amount: UInt64, to address: String, idempotencyKey: String) async throws -> EscrowWithdrawal {
        let out = try await call {
            try await client.requestWithdrawal(
                headers: .init(idempotencyKey: idempotencyKey),
                body: .json(.init(amount: try Self.wireAmount(amount), to: address)))
        }
        switch out {
        case .accepted(let accepted): return try Self.withdrawal(try accepted.body.json)
        case .default(let status, let problem): throw Self.escrowError(status, try? problem.body.applicationProblemJson)
        }
    }

    /// The account's withdrawals, newest first (at most `limit`, 1…200).
    public func withdrawals(limit: Int = 50) async throws -> [EscrowWithdrawal] {
        switch try await call({ try await client.listWithdrawals(query: .init(limit: limit)) }) {
        case .ok(let ok): return try ok.body.json.withdrawals.map(Self.withdrawal)
        case .default(let status, let problem): throw Self.escrowError(status, try? problem.body.applicationProblemJson)
        }
    }

    /// One of the account's withdrawals (`withdrawal_not_found` for an unknown id or another
    /// account's).
    public func withdrawal(id: String) async throws -> EscrowWithdrawal {
        switch try await call({ try await client.getWithdrawal(path: .init(withdrawalId: id)) }) {
        case .ok(let ok): return try Self.withdrawal(try ok.body.json)
        case .default(let status, let problem): throw Self.escrowError(status, try? problem.body.applicationProblemJson)
        }
    }

    /// The issuer's refusal; its `escrow_not_configured` in the wallet's words (the server's
    /// detail names routes, not what the person can do).
    static func escrowError(_ status: Int, _ problem: Components.Schemas.Problem?) -> IssuerClientError {
        if problem?.code == IssuerClientError.escrowNotConfiguredCode { return .escrowNotConfigured }
        return IssuerClientError(status, problem)
    }

    static func withdrawal(_ w: Components.Schemas.EscrowWithdrawal) throws -> EscrowWithdrawal {
        guard let amount = UInt64(exactly: w.amount) else {
            throw IssuerClientError(code: "bad_withdrawal", "The issuer sent a withdrawal with a negative amount.")
        }
        let status: EscrowWithdrawal.Status =
            switch w.status {
            case .pending: .pending
            case .sent: .sent
            case .paid: .paid
            case .refused: .refused
            }
        return EscrowWithdrawal(
            id: w.id, amount: amount, to: w.to, status: status, txHash: w.txHash, reason: w.reason, createdAt: w.createdAt,
            updatedAt: w.updatedAt)
    }
}
