import Foundation
import OfflineNotes
import OpenAPIRuntime
import StrictJSON
import WalletAPI

/// The API's request bodies as the server reads them (Sources/Issuer/IssuerHTTP): the strict
/// pre-check (`StrictJSON`, run by the server's middleware on every body), then the generated
/// `Components.Schemas` type decoded by a `JSONDecoder` configured as OpenAPIRuntime's
/// `Converter` does for the default `Configuration` the server registers with, then the
/// base64url fields the handlers decode (`Base64URL`, then the message decoders; a fraud
/// report's proof is checked with the vectors' keyset).
///
/// Round trip: a body that passes both must, encoded by the runtime's encoder, pass the strict
/// check and decode to an equal value; a base64url field that decodes must encode back to the
/// same text (one spelling per byte string).
///
/// Input: schema index ‖ body.
enum APIJSONTarget {
    static let name = "api-json"

    static let target = FuzzTargets.Target(
        name: name, covers: "IssuerHTTP StrictJSON.check + WalletAPI Components.Schemas request bodies + Base64URL", run: run,
        seeds: seeds)

    typealias S = Components.Schemas

    struct Schema: Sendable {
        let name: String
        let check: @Sendable (Data) -> Void
        let decodes: @Sendable (Data) -> Bool
        let samples: @Sendable () -> [String]
    }

    static func schema<T: Codable & Hashable & Sendable>(
        _ type: T.Type, samples: @escaping @Sendable () -> [String], fields: @escaping @Sendable (T) -> Void = { _ in }
    ) -> Schema {
        Schema(
            name: "\(T.self)",
            check: { data in
                guard let value = try? decoder().decode(T.self, from: data) else { return }
                let encoded: Data
                do { encoded = try encoder().encode(value) } catch {
                    fail(name, "\(T.self) decodes but does not encode: \(error)")
                }
                do { try StrictJSON.check(Array(encoded)) } catch {
                    fail(name, "the server's strict check refuses its own encoding of \(T.self): \(error)")
                }
                guard let again = try? decoder().decode(T.self, from: encoded), again == value else {
                    fail(name, "\(T.self) does not decode its own encoding to an equal value")
                }
                fields(value)
            }, decodes: { (try? decoder().decode(T.self, from: $0)) != nil }, samples: samples)
    }

    static let configuration = Configuration()

    /// OpenAPIRuntime's `Converter.init(configuration:)`: a plain decoder whose dates go through
    /// the configuration's transcoder.
    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            return try configuration.dateTranscoder.decode(text)
        }
        return decoder
    }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        var formatting: JSONEncoder.OutputFormatting = []
        if configuration.jsonEncodingOptions.contains(.prettyPrinted) { formatting.insert(.prettyPrinted) }
        if configuration.jsonEncodingOptions.contains(.sortedKeys) { formatting.insert(.sortedKeys) }
        if configuration.jsonEncodingOptions.contains(.withoutEscapingSlashes) { formatting.insert(.withoutEscapingSlashes) }
        encoder.outputFormatting = formatting
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(try configuration.dateTranscoder.encode(date))
        }
        return encoder
    }

    /// A base64url field as the handlers read it (`IssuerAPI.bytes`): what decodes must be the
    /// only spelling of its bytes.
    static func base64(_ text: String) -> [UInt8]? {
        guard let bytes = Base64URL.decode(text) else { return nil }
        guard Base64URL.encode(bytes) == text else {
            fail(name, "base64url \"\(text.prefix(80))\" decodes but encodes back differently: two spellings of one byte string")
        }
        return bytes
    }

    static func chain(_ text: String) {
        guard let bytes = base64(text), let chain = try? Chain(decoding: bytes) else { return }
        guard chain.encoded == bytes else { fail(name, "a chain field re-encodes differently") }
    }

    static func b64(_ bytes: [UInt8]) -> String { Base64URL.encode(bytes) }

    static let chains = [Vectors.hex(Vectors.messages, "chain_1hop", "hex"), Vectors.hex(Vectors.messages, "chain_3hop", "hex")]

    static let schemas: [Schema] = [
        schema(S.Credentials.self, samples: { [#"{"email":"alice@example.com","password":"correct horse battery"}"#] }),
        schema(S.RefreshRequest.self, samples: { [#"{"refreshToken":"rt_0123456789abcdef"}"#] }),
        schema(S.AmountRequest.self, samples: { [#"{"amount":2500}"#] }),
        schema(
            S.WalletKeyRegistration.self,
            samples: {
                [
                    #"{"publicKey":"\#(b64(Vectors.hex(Vectors.keys, "keys", "alice", "public")))","challenge":"Y2hhbGxlbmdl","signature":"c2lnbmF0dXJl"}"#
                ]
            },
            fields: {
                _ = base64($0.publicKey)
                _ = base64($0.challenge)
                _ = base64($0.signature)
            }),
        schema(
            S.PurchaseRequest.self,
            samples: {
                [#"{"walletKey":"\#(b64(Vectors.hex(Vectors.keys, "keys", "alice", "public")))","amount":10000}"#]
            }, fields: { _ = base64($0.walletKey) }),
        schema(
            S.Chains.self, samples: { [#"{"chains":[\#(chains.map { "\"\(b64($0))\"" }.joined(separator: ","))]}"#] },
            fields: { $0.chains.forEach(chain) }),
        schema(
            S.RefreshNotesRequest.self,
            samples: {
                [
                    #"{"walletKey":"\#(b64(Vectors.hex(Vectors.keys, "keys", "bob", "public")))","chains":["\#(b64(chains[0]))"],"restore":true}"#
                ]
            },
            fields: {
                _ = base64($0.walletKey)
                $0.chains.forEach(chain)
            }),
        schema(S.ChainRequest.self, samples: { [#"{"chain":"\#(b64(chains[1]))"}"#] }, fields: { chain($0.chain) }),
        schema(S.FraudProofReport.self, samples: fraudSamples, fields: fraudReport),
        schema(
            S.StateQuery.self,
            samples: {
                [#"{"states":["\#(b64(Vectors.hex(Vectors.messages, "issued_note", "state_ref")))","AAAA"]}"#]
            }, fields: { $0.states.forEach { _ = base64($0) } }),
        schema(S.OnlineTransfer.self, samples: { [#"{"to":"bob@example.com","amount":1}"#] }),
        schema(S.WithdrawalRequest.self, samples: { [#"{"amount":5,"to":"0x09616C3d61b3331fc4109a9E41a8BDB7d9776609"}"#] }),
        schema(
            S.FreezeRequest.self,
            samples: { [#"{"frozen":true,"reason":"chargeback under review"}"#, #"{"frozen":false,"reason":"resolved"}"#] }),
        schema(
            S.UnclaimedAssignment.self,
            samples: {
                [#"{"txHash":"0x\#(String(repeating: "ab", count: 32))","logIndex":3,"accountId":7,"reason":"wrong reference"}"#]
            }),
        schema(
            S.SurplusRequest.self,
            samples: {
                [#"{"amount":42,"txHash":"0x\#(String(repeating: "cd", count: 32))","reason":"stray transfer"}"#]
            }),
    ]

    /// The double-spend vector's fraud proof, as a client reports it.
    static func fraudSamples() -> [String] {
        guard let seed = (try? VerifyTarget.seeds())?.first(where: { $0.count > 3 && $0[2] == 1 }) else { return [] }
        let pieces = Pieces.split(Array(seed.dropFirst(3)), count: 3)
        return [#"{"chain":"\#(b64(pieces[0]))","first":"\#(b64(pieces[1]))","second":"\#(b64(pieces[2]))"}"#]
    }

    static func fraudReport(_ report: S.FraudProofReport) {
        guard let chainBytes = base64(report.chain), let firstBytes = base64(report.first),
            let secondBytes = base64(report.second),
            let chain = try? Chain(decoding: chainBytes), let first = try? Transfer(decoding: firstBytes),
            let second = try? Transfer(decoding: secondBytes)
        else { return }
        let proof = FraudProof(chain: chain, first: first, second: second)
        if let cheater = try? VerifyTarget.fixture.verifier.verify(proof, now: VerifyTarget.fixture.clocks[0]),
            cheater != proof.cheater
        {
            fail(name, "a verified fraud report names another key than its state's owner")
        }
    }

    static func run(_ bytes: [UInt8]) {
        guard let selector = bytes.first else { return }
        let body = Array(bytes.dropFirst())
        // The middleware's check comes first; what it refuses never reaches a decoder.
        do { try StrictJSON.check(body) } catch { return }
        schemas[Int(selector) % schemas.count].check(Data(body))
    }

    static func seeds() throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        for (index, schema) in schemas.enumerated() {
            let samples = schema.samples()
            guard !samples.isEmpty else { throw SeedError("no sample for \(schema.name)") }
            for sample in samples {
                // A seed the server would refuse teaches the fuzzer nothing: check each.
                do { try StrictJSON.check(Array(sample.utf8)) } catch {
                    throw SeedError("\(schema.name) sample refused: \(error)")
                }
                guard schema.decodes(Data(sample.utf8)) else {
                    throw SeedError("\(schema.name) sample does not decode: \(sample)")
                }
                out.append([UInt8(index)] + Array(sample.utf8))
            }
        }
        return out
    }
}
