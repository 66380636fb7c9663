import Foundation
import Glibc
import IssuerCore
import NIOCore
import NIOHTTP1
import OfflineNotes
import SQLStore
import Synchronization

/// The soak's operations against the servers (payments, refreshes, fraud, purchases) and the
/// HTTP calls under them; each counts what it sends and checks what comes back.
extension Soak {
    /// A purchase by `payer`, each note signed over to `payee`, who redeems the chains.
    func payment(from payer: SoakAccount, to payee: SoakAccount, tag: String, port: Int) async throws {
        let chains = try await purchase(payer, amount: UInt64.random(in: 100...900), tag: tag, port: port)
        let now = UInt64(Date().timeIntervalSince1970)
        var paid: [Chain] = []
        for chain in chains {
            let t = try Transfer.sign(
                input: chain.heldRef, outputs: [TransferOutput(owner: payee.key.publicKey, amount: chain.note.amount)],
                nonce: Self.nonce(), createdAt: now, signer: payer.key)
            paid.append(chain.appending(t, holding: 0))
        }
        let reply = try await call(
            .POST, "/v1/notes/redeem", json: ["chains": paid.map { Base64URL.encode($0.encoded) }], token: payee.token, port: port
        )
        try acknowledge(paid, results: reply["results"], route: "redeem")
        ledger.state.withLock { s in
            s.redeemed[payee.id, default: []] += paid.map(\.encoded)
            s.redemptionAcknowledged.append(.now)
        }
        ledger.count(operation: "payment (purchase, transfer, redeem)")
    }

    /// A purchase, then a refresh of those notes into fresh ones of the same key.
    func refresh(_ account: SoakAccount, tag: String, port: Int) async throws {
        let chains = try await purchase(account, amount: UInt64.random(in: 100...900), tag: tag, port: port)
        let reply = try await call(
            .POST, "/v1/notes/refresh",
            json: [
                "walletKey": Base64URL.encode(account.key.publicKey.bytes), "chains": chains.map { Base64URL.encode($0.encoded) },
            ],
            token: account.token, port: port)
        try acknowledge(chains, results: reply["results"], route: "refresh")
        guard let fresh = reply["chains"] as? [String], !fresh.isEmpty else {
            throw SoakFailure("refresh answered no fresh notes: \(reply)")
        }
        ledger.count(operation: "refresh")
    }

    /// A new account double-spends a note to two payees; `reporter` hands in the proof.
    func fraud(reporter: SoakAccount, payees: (SoakAccount, SoakAccount), tag: String, port: Int) async throws {
        let cheater = try await newAccount("cheater-\(tag)", port: port, fund: 10_000)
        guard let chain = try await purchase(cheater, amount: 500, tag: tag, port: port).first else {
            throw SoakFailure("purchase answered no notes")
        }
        let now = UInt64(Date().timeIntervalSince1970)
        let transfers = try [payees.0, payees.1].map {
            try Transfer.sign(
                input: chain.heldRef, outputs: [TransferOutput(owner: $0.key.publicKey, amount: chain.note.amount)],
                nonce: Self.nonce(),
                createdAt: now, signer: cheater.key)
        }
        let reply = try await call(
            .POST, "/v1/fraud-proofs",
            json: [
                "chain": Base64URL.encode(chain.encoded), "first": Base64URL.encode(transfers[0].encoded),
                "second": Base64URL.encode(transfers[1].encoded),
            ],
            token: reporter.token, port: port)
        guard reply["status"] as? String == "conflict", reply["fraudCase"] != nil else {
            throw SoakFailure("fraud report answered \(reply)")
        }
        ledger.state.withLock { $0.fraudReports += 1 }
        ledger.count(operation: "fraud report (new cheater)")
    }

    func purchase(_ account: SoakAccount, amount: UInt64, tag: String, port: Int) async throws -> [Chain] {
        // One key per logical purchase, reused by every retry: a purchase the server made
        // before a kill is answered again, never made twice.
        let reply = try await call(
            .POST, "/v1/notes/purchase", json: ["walletKey": Base64URL.encode(account.key.publicKey.bytes), "amount": amount],
            token: account.token,
            headers: [("Idempotency-Key", "soak-purchase-\(tag)")], port: port)
        guard let chains = reply["chains"] as? [String], !chains.isEmpty else { throw SoakFailure("purchase answered \(reply)") }
        return try chains.map { text in
            guard let bytes = Base64URL.decode(text) else { throw SoakFailure("purchase answered a chain that is not base64url") }
            return try Chain(decoding: bytes)
        }
    }

    /// Records the held states the server acknowledged as credited (this time or before).
    func acknowledge(_ chains: [Chain], results: Any?, route: String) throws {
        guard let results = results as? [[String: Any]], results.count == chains.count else {
            throw SoakFailure("\(route) answered \(String(describing: results))")
        }
        for (chain, result) in zip(chains, results) {
            let status = result["status"] as? String
            guard status == "credited" || status == "already_credited" else {
                throw SoakFailure("\(route) refused a good chain: \(result)")
            }
            _ = ledger.state.withLock { $0.acknowledged[chain.heldRef] = chain.heldOutput?.amount ?? 0 }
        }
    }

    func newAccount(_ name: String, port: Int, fund: Int) async throws -> SoakAccount {
        let email = "\(name)-\(UInt32.random(in: 0...UInt32.max))@soak.test"
        let password = "soak test password"
        _ = try await call(
            .POST, "/v1/auth/register", json: ["email": email, "password": password], token: nil, port: port, alreadyDone: 409)
        let tokens = try await call(
            .POST, "/v1/auth/login", json: ["email": email, "password": password], token: nil, port: port)
        guard let token = tokens["accessToken"] as? String, let id = (tokens["accountId"] as? NSNumber)?.int64Value else {
            throw SoakFailure("login answered \(tokens)")
        }
        let key = SoftwareSigner()
        let challenge = try await call(.POST, "/v1/wallet-keys/challenge", json: nil, token: token, port: port)
        guard let text = challenge["challenge"] as? String, let bytes = Base64URL.decode(text) else {
            throw SoakFailure("challenge answered \(challenge)")
        }
        let signature = try key.sign(KeyRegistration.message(challenge: bytes, account: id))
        _ = try await call(
            .POST, "/v1/wallet-keys",
            json: [
                "publicKey": Base64URL.encode(key.publicKey.bytes), "challenge": text, "signature": Base64URL.encode(signature),
            ], token: token, port: port)
        // Funding has no idempotency key: retried only when the server certainly did not
        // fund (no connection); any surplus from an ambiguous retry stays in the books, balanced.
        _ = try await call(.POST, "/v1/account/fund", json: ["amount": fund], token: token, port: port)
        return SoakAccount(id: id, token: token, key: key)
    }

    static func nonce() -> Nonce { Nonce(uncheckedBytes: (0..<16).map { _ in UInt8.random(in: 0...255) }) }

    /// One request, retried with the same bytes while the answer is no answer (connection
    /// refused or lost: the server is down or was killed mid-request) or a 5xx, up to
    /// `retryDeadline`. A 2xx is returned as JSON (empty for 204); `alreadyDone` names a
    /// status that means an earlier attempt of this request succeeded; anything else fails.
    func call(
        _ method: HTTPMethod, _ path: String, json: [String: Any]?, token: String?, headers: [(String, String)] = [], port: Int,
        alreadyDone: Int? = nil
    ) async throws -> [String: Any] {
        let body = try json.map { Array(try JSONSerialization.data(withJSONObject: $0)) }
        let route = "\(method.rawValue) \(path)"
        let deadline = ContinuousClock.now + retryDeadline
        var attempt = 0
        while true {
            attempt += 1
            if attempt > 1 {
                ledger.state.withLock { $0.retries += 1 }
                try await Task.sleep(for: .milliseconds(min(500, 25 * attempt)))
            }
            guard ContinuousClock.now < deadline else {
                throw SoakFailure("\(route): no good answer after \(retryDeadline) of retries")
            }
            ledger.count(request: route)
            let status: Int
            let reply: [UInt8]
            do {
                (status, reply) = try await Self.within(answerDeadline) {
                    try await NIOHTTPClient.withConnection(host: "127.0.0.1", port: port) { http in
                        try await http.send(method, path, json: body, token: token, headers: headers)
                    }
                }
            } catch is AnswerTimeout {
                // The server holds the request and never answers: no retry can fix that.
                throw SoakFailure("\(route): no answer within \(answerDeadline) (the server holds the request)")
            } catch {
                ledger.state.withLock { $0.connectionErrors[String(describing: type(of: error)), default: 0] += 1 }
                continue
            }
            let object = (try? JSONSerialization.jsonObject(with: Data(reply))) as? [String: Any] ?? [:]
            if status >= 500 {
                let code = object["code"] as? String ?? "-"
                ledger.state.withLock { $0.fiveXX.append(.init(route: route, status: status, code: code, at: .now)) }
                continue
            }
            if (200..<300).contains(status) { return object }
            if status == alreadyDone, attempt > 1 { return object }
            throw SoakFailure("\(route) answered \(status): \(String(decoding: reply, as: UTF8.self))")
        }
    }
}
