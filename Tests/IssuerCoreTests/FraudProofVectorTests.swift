import Foundation
import IssuerCore
import IssuerTesting
import OfflineNotes
import TestSupport
import Testing

/// docs/vectors/fraud-proofs.json against the issuer itself: an issuer holding the vectors' keys
/// (keys.json) answers each proof as the vector's `issuer` field says — a fraud case for a valid
/// proof, else the problem code (and field). Both refusals, `invalid_field` and a chain's §6
/// code, are HTTP 400 (IssuerHTTP's `HTTPProblem`), so the code is what tells them apart.
@Suite struct FraudProofVectorTests {
    static func signer(_ keys: [String: [String: String]], _ name: String) throws -> SoftwareSigner {
        try SoftwareSigner(rawRepresentation: try VectorFiles.bytes(keys[name]?["private"]))
    }

    @Test func theIssuerAnswersEveryProofAsTheVectorSays() async throws {
        let keys = try #require(try VectorFiles.load("keys")["keys"] as? [String: [String: String]])
        let start: Timestamp = 1_800_000_000
        let keyring = IssuerKeyring(
            authority: try Self.signer(keys, "authority"),
            issuing: [.init(signer: try Self.signer(keys, "issuer"), validFrom: start - 86_400, validUntil: start + 365 * 86_400)]
        )
        let cases = try #require(try VectorFiles.load("fraud-proofs")["cases"] as? [[String: Any]])
        #expect(cases.count >= 18)
        var answered: [String: Int] = [:]
        for c in cases {
            let name = c["name"] as? String ?? "?"
            let answer = try #require(c["issuer"] as? [String: Any])
            // A fresh issuer per proof: a case recorded by one proof must not answer another.
            let (database, _) = try await Backend.sqlite.makeDatabase()
            let clock = TestClock(try #require((c["now"] as? NSNumber)?.uint64Value))
            let issuer = try await Issuer.open(
                database: database, keyring: keyring,
                config: IssuerConfig(currency: Currency("EUR")!, maxHops: 4, passwordCost: .testing),
                challengeSecret: Array(repeating: 7, count: 32), clock: { clock.now() })
            do {
                let result = try await issuer.reportFraud(
                    account: 1, chain: try VectorFiles.bytes(c["chain"]), first: try VectorFiles.bytes(c["first"]),
                    second: try VectorFiles.bytes(c["second"]))
                #expect(answer["status"] as? Int == 200, "\(name): accepted")
                guard case .conflict(let fraudCase, let credited) = result else {
                    Issue.record("\(name): \(result) is not a fraud case")
                    continue
                }
                #expect(fraudCase > 0 && credited == 0, "\(name)")
                answered["ok", default: 0] += 1
            } catch let error as IssuerError {
                #expect(answer["status"] as? Int == 400, "\(name): refused \(error.code)")
                #expect(error.code == answer["code"] as? String, "\(name)")
                if case .invalidField(let field, _) = error { #expect(field == answer["field"] as? String, "\(name)") }
                answered[error.code, default: 0] += 1
            }
        }
        #expect(answered.values.reduce(0, +) == cases.count)
        #expect(answered["ok"] == 4 && answered["invalid_field"] == 4, "\(answered)")
    }
}
