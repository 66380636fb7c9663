import Foundation
import IssuerCore
import IssuerHTTP
import Testing
import WalletAPI

/// The API's freeze follows the console's rule (`Issuer.setFrozen`): a reason for the audit
/// log, user accounts only, and the holder of a frozen account is told who froze it.
@Suite struct FreezeTests {
    @Test func aFreezeWithoutAReasonIsRefusedAndChangesNothing() async throws {
        try await HTTPHarness.with { h in
            let (_, alice, _) = try await h.user("alice")
            let admin = try await h.adminToken()
            let url = h.baseURL.appendingPathComponent("v1/admin/accounts/\(alice.accountId)/freeze")
            let missing = try await rawRequest(url, token: admin.token, body: Data(#"{"frozen":true}"#.utf8))
            #expect(missing.status == 400)
            #expect(missing.json["code"] as? String == "invalid_request")
            #expect((missing.json["detail"] as? String)?.contains("reason") == true, "\(missing.json)")
            let blank = try await rawRequest(url, token: admin.token, body: Data(#"{"frozen":true,"reason":"  "}"#.utf8))
            #expect(blank.status == 400)
            #expect(
                blank.json["code"] as? String == "invalid_field" && blank.json["field"] as? String == "reason", "\(blank.json)")
            #expect(try await h.issuer.account(alice.accountId).frozen == false)
            #expect(try await h.issuer.auditLog(matching: AuditFilter(action: "freeze")).isEmpty)
        }
    }

    @Test func anAdminAccountCannotBeFrozen() async throws {
        try await HTTPHarness.with { h in
            let admin = try await h.adminToken()
            let other = try await h.adminToken()
            let client = h.client(token: admin.token)
            guard
                case .default(403, let refused) = try await client.freezeAccount(
                    path: .init(accountId: other.id), body: .json(.init(frozen: true, reason: "locking out a colleague")))
            else {
                Issue.record("an admin account was frozen")
                return
            }
            let problem = try refused.body.applicationProblemJson
            #expect(problem.code == "account_not_freezable")
            #expect(problem.detail?.contains("Only user accounts can be frozen") == true, "\(problem)")
            #expect(try await h.issuer.account(other.id).frozen == false)
            // Its own account likewise.
            guard
                case .default(403, _) = try await client.freezeAccount(
                    path: .init(accountId: admin.id), body: .json(.init(frozen: true, reason: "by mistake")))
            else {
                Issue.record("an admin froze itself")
                return
            }
            #expect(try await h.issuer.account(admin.id).frozen == false)
        }
    }

    /// A manual freeze is recorded with its reason, and the account's holder is told that an
    /// operator froze it (not that it double spent); the reason itself stays with the operators.
    @Test func aManualFreezeIsAuditedAndToldAsTheOperators() async throws {
        try await HTTPHarness.with { h in
            let (alice, aliceTokens, _) = try await h.user("alice")
            _ = try await alice.fundAccount(body: .json(.init(amount: 700))).ok
            let admin = h.client(token: try await h.adminToken().token)
            _ = try await admin.freezeAccount(
                path: .init(accountId: aliceTokens.accountId), body: .json(.init(frozen: true, reason: "chargeback ticket 17"))
            ).noContent
            let entry = try #require(try await h.issuer.auditLog(matching: AuditFilter(action: "freeze")).first)
            #expect(entry.detail.contains("chargeback ticket 17") && entry.detail.contains("account \(aliceTokens.accountId)"))
            let (_, _, bobEmail) = try await h.user("bob")
            guard
                case .default(403, let refused) = try await alice.sendOnline(
                    headers: .init(idempotencyKey: "frozen-send-1"), body: .json(.init(to: bobEmail, amount: 10)))
            else {
                Issue.record("a frozen account sent money")
                return
            }
            let problem = try refused.body.applicationProblemJson
            #expect(problem.code == "account_frozen")
            let detail = problem.detail ?? ""
            #expect(detail.contains("frozen by the issuer's operator") && !detail.contains("double spend"), "\(detail)")
            #expect(!detail.contains("chargeback"), "the operator's note is not shown to the holder")
        }
    }
}
