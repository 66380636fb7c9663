import Foundation
import IssuerCore
import IssuerHTTP
import OpenAPIRuntime
import Synchronization
import Testing
import WalletAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A stand-in for the escrow at the edge of these tests (the real monitor, EscrowSettlement, is
/// tested against a real node in its own suite): fixed escrow info and reconciliation, counts
/// `wake()`, parses single-case addresses (the default) and formats them upper-case so the
/// tests see the route uses `format(address:)`.
final class FakeEscrow: EscrowMonitor {
    let wakes = Mutex(0)
    let reconciliation: Reconciliation
    let last = Mutex<Reconciliation?>(nil)

    init(ok: Bool = true) {
        reconciliation = Reconciliation(
            block: 42, escrowBalance: ok ? 900 : 850, accounts: 800, debts: 0, outstandingNotes: 100, pendingWithdrawals: 0,
            unclaimed: 0,
            uncreditedDeposits: 0, paidNotSettled: 0, expected: 900, difference: ok ? 0 : -50, ok: ok, creditedThrough: 40)
    }

    var info: EscrowInfo {
        EscrowInfo(chainID: 31_337, escrow: "0xEscrow", token: "0xToken", decimals: 2, confirmations: 12)
    }

    func reconcile() async throws -> Reconciliation {
        last.withLock { $0 = reconciliation }
        return reconciliation
    }

    func wake() { wakes.withLock { $0 += 1 } }

    func format(address: [UInt8]) -> String { "0x" + address.map { String(format: "%02X", $0) }.joined() }

    var lastReconciliation: Reconciliation? { last.withLock { $0 } }
}

@Suite struct EscrowRoutesTests {
    static let to = "0x" + String(repeating: "ab", count: 20)

    static func admin(_ h: HTTPHarness) async throws -> Client {
        h.client(token: try await h.adminToken().token)
    }

    @Test func withoutAnEscrowEveryEscrowRouteIs404EscrowNotConfigured() async throws {
        try await HTTPHarness.with { h in
            let (_, tokens, _) = try await h.user("alice")
            let admin = try await Self.admin(h)
            _ = admin
            let base = h.baseURL
            let requests: [(String, String, Data?)] = [
                ("GET", "v1/escrow/deposit", nil),
                ("GET", "v1/escrow/withdrawals", nil),
                ("POST", "v1/escrow/withdrawals", Data(#"{"amount":100,"to":"\#(Self.to)"}"#.utf8)),
                ("GET", "v1/escrow/withdrawals/0x" + String(repeating: "00", count: 32), nil),
                ("GET", "v1/admin/escrow/reconciliation", nil),
                (
                    "POST", "v1/admin/escrow/unclaimed/assign",
                    Data(
                        #"{"txHash":"0x\#(String(repeating: "11", count: 32))","logIndex":0,"accountId":1,"reason":"test"}"#.utf8)
                ),
                (
                    "POST", "v1/admin/escrow/surplus",
                    Data(#"{"amount":1,"txHash":"0x\#(String(repeating: "11", count: 32))","reason":"test"}"#.utf8)
                ),
            ]
            for (method, path, body) in requests {
                var request = URLRequest(url: base.appendingPathComponent(path))
                request.httpMethod = method
                request.httpBody = body
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                request.setValue("Bearer \(tokens.accessToken)", forHTTPHeaderField: "Authorization")
                request.setValue("withdraw-key-1", forHTTPHeaderField: "Idempotency-Key")
                let (data, response) = try await URLSession.shared.data(for: request)
                let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
                #expect((response as? HTTPURLResponse)?.statusCode == 404, "\(method) \(path)")
                #expect(json["code"] as? String == "escrow_not_configured", "\(method) \(path)")
                #expect((json["detail"] as? String)?.contains("--escrow-rpc") == true, "\(method) \(path)")
            }
            // Nothing was debited by the refused withdrawal.
            #expect(try await h.issuer.account(tokens.accountId).balance == 0)
        }
    }

    /// One raw request with alice's token; the status, the JSON body and the headers.
    static func call(
        _ h: HTTPHarness, _ token: String, _ method: String, _ path: String, _ body: String? = nil, key: String = "withdraw-key-1"
    ) async throws -> (status: Int, json: [String: Any], headers: [AnyHashable: Any]) {
        var request = URLRequest(url: h.baseURL.appendingPathComponent(path))
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue(key, forHTTPHeaderField: "Idempotency-Key")
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:], http.allHeaderFields)
    }

    /// The routes' earlier spelling still answers, for one release: the same handler, its old
    /// problem codes, and headers that name the successor path.
    @Test func theOldChainPathsStillAnswerMarkedDeprecatedWithTheirOldCodes() async throws {
        try await HTTPHarness.with { h in
            let token = try await h.user("alice").tokens.accessToken
            for (method, old, body) in [
                ("GET", "v1/chain/deposit", nil), ("POST", "v1/chain/withdrawals", #"{"amount":100,"to":"\#(Self.to)"}"#),
                ("GET", "v1/admin/chain/reconciliation", nil),
            ] {
                let answer = try await Self.call(h, token, method, old, body)
                #expect(answer.status == 404 && answer.json["code"] as? String == "chain_not_configured", "\(method) \(old)")
                #expect(answer.headers["Deprecation"] as? String == "true", "\(method) \(old)")
                let successor = "/" + old.replacingOccurrences(of: "chain/", with: "escrow/")
                #expect(answer.headers["Link"] as? String == "<\(successor)>; rel=\"successor-version\"", "\(method) \(old)")
                let current = try await Self.call(h, token, method, String(successor.dropFirst()), body)
                #expect(current.json["code"] as? String == "escrow_not_configured" && current.headers["Deprecation"] == nil)
            }
        }
        try await HTTPHarness.with(escrow: FakeEscrow()) { h in
            let (alice, tokens, _) = try await h.user("alice")
            _ = try await alice.fundAccount(body: .json(.init(amount: 10_000))).ok
            let token = tokens.accessToken
            let old = try await Self.call(h, token, "GET", "v1/chain/deposit")
            let current = try await Self.call(h, token, "GET", "v1/escrow/deposit")
            #expect(old.status == 200 && NSDictionary(dictionary: old.json).isEqual(to: current.json))
            #expect(old.headers["Deprecation"] as? String == "true")
            // A withdrawal made through an old path is the same withdrawal under the new one.
            let made = try await Self.call(h, token, "POST", "v1/chain/withdrawals", #"{"amount":2500,"to":"\#(Self.to)"}"#)
            #expect(made.status == 202, "\(made.json)")
            let id = try #require(made.json["id"] as? String)
            let again = try await Self.call(h, token, "GET", "v1/chain/withdrawals/\(id)")
            #expect(again.status == 200 && again.json["id"] as? String == id)
            #expect(again.headers["Link"] as? String == "</v1/escrow/withdrawals/\(id)>; rel=\"successor-version\"")
            #expect(try await alice.getWithdrawal(path: .init(withdrawalId: id)).ok.body.json.amount == 2_500)
            #expect(try await alice.getAccount().ok.body.json.balance == 7_500)
            // A method the path does not serve is 405 there too.
            #expect(try await Self.call(h, token, "DELETE", "v1/chain/deposit").status == 405)
        }
    }

    @Test(arguments: HTTPBackend.available)
    func aWithdrawalRoundTrip(_ backend: HTTPBackend) async throws {
        let monitor = FakeEscrow()
        try await HTTPHarness.with(backend, escrow: monitor) { h in
            let (alice, tokens, _) = try await h.user("alice")
            _ = try await alice.fundAccount(body: .json(.init(amount: 10_000))).ok
            let instructions = try await alice.getDepositInstructions().ok.body.json
            #expect(instructions.chainId == "31337" && instructions.escrow == "0xEscrow" && instructions.token == "0xToken")
            #expect(instructions.decimals == 2 && instructions.confirmations == 12 && instructions.currency == "EUR")
            let ref = try await h.issuer.depositReference(account: tokens.accountId)
            #expect(instructions.accountRef == EVMHex.hex(ref))

            let request = Operations.RequestWithdrawal.Input.Body.json(.init(amount: 2_500, to: Self.to))
            let w = try await alice.requestWithdrawal(headers: .init(idempotencyKey: "withdraw-key-1"), body: request).accepted
                .body.json
            #expect(
                w.amount == 2_500 && w.status == .pending
                    && w.to == Self.to.uppercased().replacingOccurrences(of: "0X", with: "0x"))
            #expect(w.id.hasPrefix("0x") && w.id.count == 66 && w.txHash == nil)
            #expect(monitor.wakes.withLock { $0 } == 1, "the payout sender is woken")
            // A retry answers the same withdrawal and debits nothing more.
            let replay = try await alice.requestWithdrawal(headers: .init(idempotencyKey: "withdraw-key-1"), body: request)
                .accepted.body.json
            #expect(replay.id == w.id)
            #expect(try await alice.getAccount().ok.body.json.balance == 7_500)
            #expect(try await alice.listWithdrawals().ok.body.json.withdrawals.map(\.id) == [w.id])
            #expect(try await alice.getWithdrawal(path: .init(withdrawalId: w.id)).ok.body.json.id == w.id)

            // The EVM side pays it: the route shows the hash and the new status.
            let id = try #require(EVMHex.bytes(w.id, count: 32))
            let hash = Array(repeating: UInt8(0xCD), count: 32)
            _ = try await h.issuer.recordPayout(id: id, nodeNonce: 0) { _ in ([2, 1], hash) }
            _ = try await h.issuer.completeWithdrawal(id: id, txHash: hash)
            let paid = try await alice.getWithdrawal(path: .init(withdrawalId: w.id)).ok.body.json
            #expect(paid.status == .paid && paid.txHash == EVMHex.hex(hash))

            // Bad requests say what to do and change nothing.
            for (amount, to, code) in [
                (Int64(100), "0x1234", "invalid_field"), (100, "0x" + String(repeating: "aB", count: 20), "invalid_field"),
                (100, "0x" + String(repeating: "00", count: 20), "invalid_field"), (0, Self.to, "invalid_field"),
                (1_000_000, Self.to, "insufficient_funds"),
            ] {
                guard
                    case .default(let status, let problem) = try await alice.requestWithdrawal(
                        headers: .init(idempotencyKey: UUID().uuidString), body: .json(.init(amount: amount, to: to)))
                else {
                    Issue.record("withdrawal of \(amount) to \(to) accepted")
                    continue
                }
                #expect(status == (code == "insufficient_funds" ? 422 : 400), "\(amount) \(to)")
                guard case .applicationProblemJson(let body) = problem.body else {
                    Issue.record("not a problem")
                    continue
                }
                #expect(body.code == code, "\(amount) \(to): \(body.detail ?? "")")
            }
            #expect(try await alice.getAccount().ok.body.json.balance == 7_500)
            guard case .default(400, _) = try await alice.getWithdrawal(path: .init(withdrawalId: "0x12")) else {
                Issue.record("a malformed id was not refused")
                return
            }
            #expect(try await h.issuer.checkLedger().isEmpty)
        }
    }

    @Test func anotherAccountsWithdrawalIs404() async throws {
        try await HTTPHarness.with(escrow: FakeEscrow()) { h in
            let (alice, _, _) = try await h.user("alice")
            let (bob, _, _) = try await h.user("bob")
            _ = try await alice.fundAccount(body: .json(.init(amount: 1_000))).ok
            let w = try await alice.requestWithdrawal(
                headers: .init(idempotencyKey: "alice-withdraws"), body: .json(.init(amount: 100, to: Self.to))
            )
            .accepted.body.json
            guard case .default(404, let problem) = try await bob.getWithdrawal(path: .init(withdrawalId: w.id)),
                case .applicationProblemJson(let body) = problem.body
            else {
                Issue.record("bob saw alice's withdrawal")
                return
            }
            #expect(body.code == "withdrawal_not_found")
            #expect(try await bob.listWithdrawals().ok.body.json.withdrawals.isEmpty)
            // The same answer as an id that does not exist at all.
            guard
                case .default(404, _) = try await alice.getWithdrawal(
                    path: .init(withdrawalId: "0x" + String(repeating: "11", count: 32)))
            else {
                Issue.record("a missing withdrawal was not 404")
                return
            }
        }
    }

    @Test func reconciliationIsForAdminsAndFeedsTheMetrics() async throws {
        let monitor = FakeEscrow(ok: false)
        try await HTTPHarness.with(escrow: monitor) { h in
            let (alice, _, _) = try await h.user("alice")
            guard case .default(403, _) = try await alice.getReconciliation() else {
                Issue.record("a user reconciled")
                return
            }
            #expect(monitor.lastReconciliation == nil)
            let admin = try await Self.admin(h)
            let r = try await admin.getReconciliation().ok.body.json
            #expect(
                r.block == 42 && r.escrowBalance == 850 && r.expected == 900 && r.difference == -50 && !r.ok
                    && r.creditedThrough == 40)
            #expect(r.currency == "EUR")
            let metrics = try await admin.metrics().ok.body.plainText
            let text = try await String(collecting: metrics, upTo: 1 << 20)
            #expect(text.contains("offline_wallet_escrow_reconciliation_ok 0"))
            #expect(text.contains("offline_wallet_escrow_reconciliation_difference_minor_units -50"))
            #expect(text.contains("offline_wallet_escrow_deposits_credited_total 0"))

            // The counters follow the database's totals, counted once however often scraped.
            let (bob, bobTokens, _) = try await h.user("bob")
            let ref = try await h.issuer.depositReference(account: bobTokens.accountId)
            _ = try await h.issuer.creditEscrowDeposits(
                [
                    EscrowDeposit(
                        txHash: Array(repeating: 1, count: 32), logIndex: 0, blockNumber: 5, accountRef: ref, amount: 500)
                ],
                scannedThrough: 5)
            let w = try await bob.requestWithdrawal(
                headers: .init(idempotencyKey: "bob-withdraws"), body: .json(.init(amount: 200, to: Self.to))
            )
            .accepted.body.json
            _ = try await h.issuer.completeWithdrawal(id: try #require(EVMHex.bytes(w.id, count: 32)), txHash: nil)
            for _ in 0..<2 {
                let scraped = try await String(collecting: try await admin.metrics().ok.body.plainText, upTo: 1 << 20)
                #expect(scraped.contains("offline_wallet_escrow_deposits_credited_total 1\n"))
                #expect(scraped.contains(#"offline_wallet_escrow_payouts_total{status="paid"} 1\#n"#))
                #expect(scraped.contains(#"offline_wallet_escrow_payouts_total{status="refused"} 0\#n"#))
            }
        }
    }
}

/// A stand-in whose escrow balance the test sets and whose reconciliation reads the real
/// books (uncredited deposits and unsettled payouts 0): the surplus route's refusal depends
/// on what the books hold, as with the real monitor.
final class BooksEscrow: EscrowMonitor {
    let issuer = Mutex<Issuer?>(nil)
    /// The escrow's token balance.
    let escrow = Mutex<Int64>(0)

    var info: EscrowInfo { EscrowInfo(chainID: 31_337, escrow: "0xEscrow", token: "0xToken", decimals: 2, confirmations: 12) }

    func reconcile() async throws -> Reconciliation {
        guard let issuer = issuer.withLock({ $0 }) else { throw IssuerError.storage("BooksEscrow has no issuer") }
        return try Reconciliation(
            block: 42, escrowBalance: escrow.withLock { $0 }, liabilities: try await issuer.escrowLiabilities(),
            uncreditedDeposits: 0, paidNotSettled: 0)
    }

    func wake() {}
}

extension EscrowRoutesTests {
    static func post(
        _ h: HTTPHarness, _ path: String, token: String, _ json: String
    ) async throws -> (status: Int, body: [String: Any]) {
        var request = URLRequest(url: h.baseURL.appendingPathComponent(path))
        request.httpMethod = "POST"
        request.httpBody = Data(json.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        return (
            (response as? HTTPURLResponse)?.statusCode ?? 0,
            (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        )
    }

    /// An admin's token and account id.
    static func adminToken(_ h: HTTPHarness) async throws -> (token: String, id: Int64) {
        try await h.adminToken()
    }

    @Test(arguments: HTTPBackend.available)
    func anAdminAssignsAnUnclaimedDepositOnce(_ backend: HTTPBackend) async throws {
        try await HTTPHarness.with(backend, escrow: FakeEscrow()) { h in
            let (alice, tokens, _) = try await h.user("alice")
            let admin = try await Self.adminToken(h)
            let txHash = Array(repeating: UInt8(0x5A), count: 32)
            _ = try await h.issuer.creditEscrowDeposits(
                [
                    EscrowDeposit(
                        txHash: txHash, logIndex: 3, blockNumber: 7, accountRef: Array(repeating: 0xEE, count: 32), amount: 1_250)
                ], scannedThrough: 7)
            let body =
                #"{"txHash":"\#(EVMHex.hex(txHash))","logIndex":3,"accountId":\#(tokens.accountId),"reason":"support ticket 17"}"#
            let path = "v1/admin/escrow/unclaimed/assign"

            let byUser = try await Self.post(h, path, token: tokens.accessToken, body)
            #expect(byUser.status == 403 && byUser.body["code"] as? String == "forbidden")

            let first = try await Self.post(h, path, token: admin.token, body)
            #expect(first.status == 200, "\(first.body)")
            #expect(first.body["amount"] as? Int == 1_250 && first.body["accountId"] as? Int == Int(tokens.accountId))
            #expect(
                first.body["assignedBy"] as? Int == Int(admin.id) && first.body["blockNumber"] as? Int == 7
                    && first.body["currency"] as? String == "EUR")
            #expect(try await alice.getAccount().ok.body.json.balance == 1_250)

            let second = try await Self.post(h, path, token: admin.token, body)
            #expect(second.status == 409 && second.body["code"] as? String == "deposit_not_unclaimed", "\(second.body)")
            #expect((second.body["detail"] as? String)?.contains("already credited to account \(tokens.accountId)") == true)
            #expect(try await alice.getAccount().ok.body.json.balance == 1_250)

            let unknown = try await Self.post(
                h, path, token: admin.token, body.replacingOccurrences(of: #""logIndex":3"#, with: #""logIndex":4"#))
            #expect(unknown.status == 404 && unknown.body["code"] as? String == "deposit_not_found")
            let noReason = try await Self.post(
                h, path, token: admin.token, body.replacingOccurrences(of: "support ticket 17", with: " "))
            #expect(noReason.status == 400 && noReason.body["field"] as? String == "reason")
            let badHash = try await Self.post(
                h, path, token: admin.token, body.replacingOccurrences(of: EVMHex.hex(txHash), with: "0x12"))
            #expect(badHash.status == 400 && badHash.body["field"] as? String == "txHash")

            let audit = try await h.issuer.auditLog(limit: 1)
            #expect(
                audit.first?.action == "escrow_deposit_assigned" && audit.first?.actor == admin.id
                    && audit.first?.detail.hasSuffix("support ticket 17") == true)
            #expect(try await h.issuer.checkLedger().isEmpty)
        }
    }

    @Test(arguments: HTTPBackend.available)
    func surplusIsBookedOnlyWhenTheEscrowHoldsItAndOncePerTransfer(_ backend: HTTPBackend) async throws {
        let monitor = BooksEscrow()
        try await HTTPHarness.with(backend, escrow: monitor) { h in
            monitor.issuer.withLock { $0 = h.issuer }
            let (_, tokens, _) = try await h.user("alice")
            let admin = try await Self.adminToken(h)
            let adminClient = h.client(token: admin.token)
            // A deposit credited (the escrow holds it), then 500 sent straight to the escrow.
            let ref = try await h.issuer.depositReference(account: tokens.accountId)
            _ = try await h.issuer.creditEscrowDeposits(
                [
                    EscrowDeposit(
                        txHash: Array(repeating: 1, count: 32), logIndex: 0, blockNumber: 5, accountRef: ref, amount: 2_000)
                ], scannedThrough: 5)
            monitor.escrow.withLock { $0 = 2_000 }
            #expect(try await adminClient.getReconciliation().ok.body.json.ok)
            let path = "v1/admin/escrow/surplus"
            let transfer = EVMHex.hex(Array(repeating: 0x77, count: 32))
            func body(_ amount: Int, _ hash: String = transfer) -> String {
                #"{"amount":\#(amount),"txHash":"\#(hash)","reason":"token transfer to the escrow"}"#
            }

            let nothing = try await Self.post(h, path, token: admin.token, body(500))
            #expect(
                nothing.status == 409 && nothing.body["code"] as? String == "no_surplus", "no difference yet: \(nothing.body)")
            monitor.escrow.withLock { $0 += 500 }
            let r = try await adminClient.getReconciliation().ok.body.json
            #expect(!r.ok && r.difference == 500)

            let byUser = try await Self.post(h, path, token: tokens.accessToken, body(500))
            #expect(byUser.status == 403)
            let tooMuch = try await Self.post(h, path, token: admin.token, body(501))
            #expect(tooMuch.status == 409 && tooMuch.body["code"] as? String == "no_surplus")
            #expect((tooMuch.body["detail"] as? String)?.contains("5.00 EUR") == true)

            let booked = try await Self.post(h, path, token: admin.token, body(500))
            #expect(
                booked.status == 200 && booked.body["replayed"] as? Bool == false
                    && booked.body["bookedBy"] as? Int == Int(admin.id), "\(booked.body)")
            let after = try await adminClient.getReconciliation().ok.body.json
            #expect(after.ok && after.difference == 0 && after.unclaimed == 500)

            // Once per transfer: the same again answers the booking; nothing more is booked.
            let replay = try await Self.post(h, path, token: admin.token, body(500))
            #expect(replay.status == 200 && replay.body["replayed"] as? Bool == true)
            let otherAmount = try await Self.post(h, path, token: admin.token, body(300))
            #expect(otherAmount.status == 409 && otherAmount.body["code"] as? String == "surplus_conflict")
            let otherHash = try await Self.post(
                h, path, token: admin.token, body(500, EVMHex.hex(Array(repeating: 0x78, count: 32))))
            #expect(otherHash.status == 409 && otherHash.body["code"] as? String == "no_surplus")
            #expect(try await adminClient.getReconciliation().ok.body.json.ok)
            #expect(try await h.issuer.escrowSurplusBooked() == 500)
            #expect(try await h.issuer.auditLog(limit: 1).first?.action == "escrow_surplus_booked")
            #expect(try await h.issuer.checkLedger().isEmpty)
        }
    }
}
