import Foundation
import OfflineNotes
import Synchronization
import TestSupport
import Testing
import WalletCore
import WalletFlows
import WalletSync
import WalletTestSupport

/// Deposits and withdrawals through the issuer's escrow routes, against a real server on
/// loopback: without escrow settlement (`escrow_not_configured`), and with a stand-in escrow monitor
/// (the books as in escrow mode; payouts settled by hand as the payout sender would).
@Suite("Escrow settlement: the wallet's side")
struct EscrowWithdrawFlowTests {
    static let address = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"
    static let eur = Currency("EUR")!

    @Test func withoutEscrowSettlementTheIssuerSaysSoAndNothingIsKept() async throws {
        try await LoopbackIssuer.with { h in
            let (session, store) = try await h.loggedIn("no-escrow", funds: 10_000)
            let instructions = await #expect(throws: IssuerClientError.self) { try await session.client.depositInstructions() }
            #expect(instructions?.isEscrowNotConfigured == true)
            #expect(instructions?.description.contains("does not settle through an escrow") == true)
            let withdrawal = await #expect(throws: IssuerClientError.self) {
                try await session.withdraw(amount: 100, to: Self.address)
            }
            #expect(withdrawal?.isEscrowNotConfigured == true)
            #expect(try store.loadFlowState().pendingWithdrawal == nil)  // refused: nothing to retry
            let list = await #expect(throws: IssuerClientError.self) { try await session.client.withdrawals() }
            #expect(list?.code == IssuerClientError.escrowNotConfiguredCode)
            #expect(try await session.account().balance == 10_000)
        }
    }

    /// A malformed address is refused before anything is saved or sent.
    @Test func aMalformedAddressSendsNothing() async throws {
        try await LoopbackIssuer.with(escrow: StandInEscrow()) { h in
            let (session, store) = try await h.loggedIn("typo", funds: 10_000)
            await #expect(throws: EVMAddressError.wrongLength(39)) {
                try await session.withdraw(amount: 100, to: String(Self.address.dropLast()))
            }
            await #expect(throws: EVMAddressError.zero) {
                try await session.withdraw(amount: 100, to: "0x" + String(repeating: "0", count: 40))
            }
            #expect(try store.loadFlowState().pendingWithdrawal == nil)
            #expect(try await session.client.withdrawals().isEmpty)
            #expect(try await session.account().balance == 10_000)
        }
    }

    @Test func instructionsWithdrawalAndItsStatus() async throws {
        try await LoopbackIssuer.with(escrow: StandInEscrow()) { h in
            let (session, store) = try await h.loggedIn("withdrawer", funds: 10_000)
            let instructions = try await session.client.depositInstructions()
            #expect(instructions.chainID == 31337 && instructions.decimals == 2 && instructions.confirmations == 3)
            #expect(instructions.currency == "EUR" && instructions.escrow == StandInEscrow().info.escrow)
            #expect(AddressFormat.isHex(instructions.accountRef, bytes: 32))
            #expect(try await session.client.depositInstructions().accountRef == instructions.accountRef)  // one per account
            let plan = try EscrowDepositPlan(instructions, currency: Self.eur, amount: 1_234)
            #expect(
                plan.depositURI == "ethereum:\(instructions.escrow)@31337/deposit?uint256=1234&bytes32=\(instructions.accountRef)"
            )

            let result = try await session.withdraw(amount: 2_500, to: Self.address)
            #expect(!result.resent && result.earlier == nil)
            let w = result.withdrawal
            #expect(w.amount == 2_500 && w.to == Self.address && w.status == .pending && w.txHash == nil)
            #expect(AddressFormat.isHex(w.id, bytes: 32))
            #expect(try store.loadFlowState().pendingWithdrawal == nil)  // answered: nothing to retry
            #expect(try await session.account().balance == 7_500)
            #expect(try await session.client.withdrawals() == [w])
            #expect(try await session.client.withdrawal(id: w.id) == w)

            let tx = try await h.settle(w.id, as: .sent)
            let sent = try await session.client.withdrawal(id: w.id)
            #expect(sent.status == .sent && sent.txHash == tx)
            try await h.settle(w.id, as: .paid)
            #expect(try await session.client.withdrawal(id: w.id).status == .paid)
            #expect(try await session.account().balance == 7_500)

            // Refused on the blockchain: the money comes back.
            let second = try await session.withdraw(amount: 1_000, to: Self.address).withdrawal
            #expect(try await session.account().balance == 6_500)
            try await h.settle(second.id, as: .refused, reason: "daily cap reached")
            let refused = try await session.client.withdrawal(id: second.id)
            #expect(refused.status == .refused && refused.reason == "daily cap reached")
            #expect(try await session.account().balance == 7_500)
            #expect(try await session.client.withdrawals().map(\.id) == [second.id, w.id])  // newest first

            // Another account's withdrawal is not found, as a missing one.
            let (other, _) = try await h.loggedIn("other")
            let hidden = await #expect(throws: IssuerClientError.self) { try await other.client.withdrawal(id: w.id) }
            #expect(hidden?.code == "withdrawal_not_found" && hidden?.status == 404)
        }
    }

    /// The issuer's refusals (checksum, funds) forget the request: nothing was debited.
    @Test func refusalsAreForgotten() async throws {
        try await LoopbackIssuer.with(escrow: StandInEscrow()) { h in
            let (session, store) = try await h.loggedIn("refused", funds: 1_000)
            // The stand-in checks single-case addresses only (no Keccak): mixed case is refused
            // by the issuer, as a wrong checksum is in escrow mode.
            let mixed = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
            #expect(try AddressFormat.check(mixed) == mixed)  // the wallet checks the form only
            let checksum = await #expect(throws: IssuerClientError.self) { try await session.withdraw(amount: 100, to: mixed) }
            #expect(checksum?.code == "invalid_field" && checksum?.status == 400)
            #expect(try store.loadFlowState().pendingWithdrawal == nil)
            let poor = await #expect(throws: IssuerClientError.self) {
                try await session.withdraw(amount: 5_000, to: Self.address)
            }
            #expect(poor?.code == "insufficient_funds")
            #expect(try store.loadFlowState().pendingWithdrawal == nil)
            #expect(try await session.account().balance == 1_000)
        }
    }

    /// The answer to a withdrawal is lost after the issuer debited it: the same withdrawal again
    /// (a retried command, a new session) sends the saved key and gets the same withdrawal back,
    /// debited once. A different withdrawal finishes the remembered one first with its own key.
    @Test func aLostAnswerIsRetriedWithTheSameKeyAndDebitsOnce() async throws {
        try await LoopbackIssuer.with(escrow: StandInEscrow()) { h in
            let losing = Mutex(1)
            let (session, store) = try await h.loggedIn("crash", funds: 10_000) { url in
                IssuerClient(
                    serverURL: url,
                    transport: LosingTransport { operation in
                        operation == "requestWithdrawal"
                            && losing.withLock { count in
                                defer { count = max(0, count - 1) }
                                return count > 0
                            }
                    })
            }
            let lost = await #expect(throws: IssuerClientError.self) {
                try await session.withdraw(amount: 3_000, to: Self.address)
            }
            #expect(lost?.isUnreachable == true)
            let pending = try #require(try store.loadFlowState().pendingWithdrawal)
            #expect(pending.amount == 3_000 && pending.to == Self.address)
            #expect(try await session.account().balance == 7_000)  // the issuer did it

            let next = try await WalletSession.resume(wallet: session.wallet, credentials: store, flowState: store)
            let retried = try await next.withdraw(amount: 3_000, to: Self.address)
            #expect(retried.resent)
            #expect(try await next.account().balance == 7_000)
            let list = try await next.client.withdrawals()
            #expect(list.map(\.id) == [retried.withdrawal.id])
            #expect(try store.loadFlowState().pendingWithdrawal == nil)

            // Remembered again (as if lost once more), then a different withdrawal: the first is
            // answered with its own key (no second debit), then the new one is made.
            try store.updateFlowState { $0.pendingWithdrawal = pending }
            let other = try await next.withdraw(amount: 500, to: Self.address)
            #expect(!other.resent && other.earlier?.id == retried.withdrawal.id)
            #expect(try await next.account().balance == 6_500)
            #expect(try await next.client.withdrawals().count == 2)
            #expect(try store.loadFlowState().pendingWithdrawal == nil)

            // finishPendingWithdrawal (the list screens run it first) answers the same too.
            try store.updateFlowState { $0.pendingWithdrawal = pending }
            #expect(try await next.finishPendingWithdrawal()?.id == retried.withdrawal.id)
            #expect(try await next.finishPendingWithdrawal() == nil)
            #expect(try await next.account().balance == 6_500)
        }
    }

    /// config.json keeps the pending withdrawal under its own key, beside the existing ones.
    @Test func thePendingWithdrawalIsSavedInConfigJSON() throws {
        let scratch = try TemporaryDirectory("escrow-config")
        let path = scratch.path("config.json")
        let store = ConfigFileStore(path: path, seal: nil)
        let pending = PendingWithdrawal(key: "K-9", amount: 1_250, to: Self.address)
        try store.updateFlowState { $0.pendingWithdrawal = pending }
        #expect(try ConfigFileStore(path: path, seal: nil).loadFlowState().pendingWithdrawal == pending)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let saved = try #require(json["pendingWithdrawal"] as? [String: Any])
        #expect(saved["key"] as? String == "K-9" && saved["amount"] as? Int == 1_250 && saved["to"] as? String == Self.address)
        try store.updateFlowState { $0.pendingWithdrawal = nil }
        let cleared = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        #expect(cleared["pendingWithdrawal"] == nil)
    }
}
