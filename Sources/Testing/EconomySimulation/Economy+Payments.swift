import Foundation
import IssuerCore
import OfflineNotes
import QRPayload
import SQLStore
import Synchronization
import WalletCore

/// The economy's payments: a member pays another offline (honestly, or cheating as its
/// profile says), and members recharge from their accounts.
extension Economy {
    /// An honest offline payment through the public engine API: the payee makes a request,
    /// the payer pays (going online first when it must), the payee receives, the payer confirms
    /// the receipt (unless `loseReceipt`: then its sync settles the payment with the issuer).
    @discardableResult
    func pay(
        _ p: Member, _ q: Member, _ amount: UInt64, loseReceipt: Bool = false
    ) async throws -> (PaymentRequest, OutgoingPayment)? {
        let request = try wallet(q).createRequest(amount: amount)
        let sent: OutgoingPayment
        do {
            sent = try wallet(p).pay(request)
        } catch {
            count("pay-needed-online-\(error.code)")
            guard ["insufficient_funds", "needs_refresh", "needs_online_check", "too_many_notes"].contains(error.code) else {
                violation("an honest payer could not pay: \(error)")
                return nil
            }
            try await sync(p, recharge: amount)
            do {
                sent = try wallet(p).pay(request)
            } catch {
                count("pay-skipped-\(error.code)")
                return nil
            }
        }
        if try wallet(q).balance().riskBudgetLeft < amount { try await sync(q) }
        let got: ReceivedPayment
        do {
            got = try wallet(q).receive(sent.bundle, for: request.nonce)
        } catch WalletError.doubleSpendDetected {
            // The payer's note descends from a state a cheater spent twice, and this payee has
            // seen the other branch: refusing is right. The payer's sync announces the payment;
            // at expiry the issuer refunds it to this payee, the last holder it knows (§5.2 rule 4),
            // from the float or, on the losing branch, from the cheater's account.
            tallies[p.account, default: AccountTally()].sent += Int64(amount)
            tallies[q.account, default: AccountTally()].received += Int64(amount)
            count("tainted-payments-refused")
            return nil
        } catch {
            violation("an honest payee refused an honest payment (\(error.code)): \(error)")
            // The payer signed it away; announced at its sync, it reaches the payee's account at expiry.
            tallies[p.account, default: AccountTally()].sent += Int64(amount)
            tallies[q.account, default: AccountTally()].received += Int64(amount)
            return nil
        }
        tallies[p.account, default: AccountTally()].sent += Int64(amount)
        tallies[q.account, default: AccountTally()].received += Int64(amount)
        report.payments += 1
        report.framesPerPayment[try QRFrames.encode(sent.bundle).count, default: 0] += 1
        count("value-paid-offline", Int(amount))
        if loseReceipt {
            count("receipts-lost")
        } else {
            try wallet(p).confirm(receipt: got.receipt.encoded)
        }
        return (request, sent)
    }

    /// Buys notes up to `target` when the wallet holds less (funding the account from outside
    /// when it is short): what an honest user's auto-recharge does.
    func recharge(_ m: Member, target: UInt64) async throws {
        let w = try wallet(m)
        let spendable = try w.balance().spendable
        guard spendable < target else { return }
        var amount = target - spendable
        let account = try await issuer.account(m.account)
        guard !account.frozen else {
            count("recharge-refused-frozen")
            return
        }
        if account.balance < Int64(amount) { try await fund(m, UInt64(Int64(amount) - account.balance) + 20_000) }
        for _ in 0..<2 {
            do {
                try w.deposit(
                    try await issuer.purchase(
                        account: m.account, walletKey: w.publicKey, amount: amount, idempotencyKey: nextKey()))
                count("purchases")
                return
            } catch IssuerError.holdingLimitExceeded(let limit, let outstanding, _, _) {
                count("purchase-holding-limit")
                guard limit > outstanding else { return }
                amount = min(amount, limit - outstanding)
            }
        }
    }
}
