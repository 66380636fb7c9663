import Foundation
import IssuerCore
import TestSupport

/// A escrow monitor without an escrow, for the wallet's tests of the escrow routes: the server
/// answers deposit instructions and takes withdrawals into its books as in escrow mode; nothing
/// is ever paid out unless the test settles a withdrawal by hand (`LoopbackIssuer.settle`), as
/// the payout sender would. Addresses are checked by IssuerCore's single-case rule (no Keccak
/// here), so a mixed-case address is refused. Test support: not part of any product.
public struct StandInEscrow: EscrowMonitor {
    public let info: EscrowInfo

    public init(
        info: EscrowInfo = EscrowInfo(
            chainID: 31337, escrow: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
            token: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
            decimals: 2, confirmations: 3)
    ) {
        self.info = info
    }

    public struct NoEscrow: Error, CustomStringConvertible {
        public var description: String { "the stand-in escrow has no escrow to reconcile" }
    }

    public func reconcile() async throws -> Reconciliation { throw NoEscrow() }
    public func wake() {}
}

extension LoopbackIssuer {
    /// What the payout sender does with a withdrawal (`id` as the API shows it): `.sent` records
    /// a payout transaction (status sent, a transaction hash), `.paid` and `.refused` settle it
    /// (after recording the payout when it is still pending). Returns the transaction hash.
    @discardableResult
    public func settle(
        _ id: String, as status: Withdrawal.Status, reason: String = "refused by the escrow"
    ) async throws -> String {
        guard let bytes = EVMHex.bytes(id, count: 32) else { throw TestSupportError("'\(id)' is not a withdrawal id") }
        let hash = Array(bytes.reversed())
        let sent = try await issuer.recordPayout(id: bytes, nodeNonce: 0) { _ in ([0x02, 0x01], hash) }
        switch status {
        case .pending, .sent: break
        case .paid: try await issuer.completeWithdrawal(id: bytes, txHash: nil)
        case .refused: try await issuer.refuseWithdrawal(id: bytes, txHash: nil, reason: reason)
        }
        return EVMHex.hex(sent.txHash ?? hash)
    }
}
