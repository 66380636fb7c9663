import Crypto
import Foundation
import NearbySession
import OfflineNotes
import Testing

/// docs/vectors/session.json: both machines, given the listed keys, produce and accept exactly
/// the listed frames, so a compatible implementation can be checked byte for byte.
@Suite struct SessionVectorTests {
    static let file = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/vectors/session.json")

    let vector: [String: Any]

    init() throws {
        vector = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.file)) as? [String: Any])
    }

    func bytes(_ key: String) throws -> [UInt8] {
        let text = try #require(vector[key] as? String)
        return try #require(Hex.decode(text))
    }
    func frames(_ key: String) throws -> [[UInt8]] {
        let texts = try #require(vector[key] as? [String])
        var out: [[UInt8]] = []
        for text in texts { out.append(try #require(Hex.decode(text))) }
        return out
    }

    @Test func machinesReproduceTheVector() throws {
        let mtu = try #require(vector["mtu"] as? Int)
        let request = try PaymentRequest(decoding: try bytes("request"))
        let payeeKey = try P256.KeyAgreement.PrivateKey(rawRepresentation: try bytes("payee_ephemeral_private"))
        let payerKey = try P256.KeyAgreement.PrivateKey(rawRepresentation: try bytes("payer_ephemeral_private"))

        var payer = try NearbyPayer(request: request, bundle: try bytes("bundle"), ephemeral: payerKey)
        #expect(payer.transcriptHash.bytes == (try bytes("transcript_hash")))
        #expect(payer.keys.rawKeys.payerToPayee == (try bytes("key_payer_to_payee")))
        #expect(payer.keys.rawKeys.payeeToPayer == (try bytes("key_payee_to_payer")))
        #expect(
            SessionKeys.transcriptHash(request: request.encoded, hello: try bytes("hello")).bytes
                == (try bytes("transcript_hash")))
        let payerFrames = payer.frames(mtu: mtu, now: .zero, rto: .seconds(1))
        #expect(payerFrames.map(\.encoded) == (try frames("payer_frames")))

        var payee = try NearbyPayee(request: request, ephemeral: payeeKey)
        var event: SessionEvent?
        for frame in try frames("payer_frames") { event = try payee.handle(try LinkFrame(decoding: frame), now: .zero) ?? event }
        #expect(event == .payment(bundle: try bytes("bundle"), transcriptHash: payer.transcriptHash))
        try payee.reply(receipt: try bytes("receipt"))
        #expect(payee.frames(mtu: mtu, now: .zero, rto: .seconds(1)).map(\.encoded) == (try frames("payee_frames")))

        var answer: SessionEvent?
        for frame in try frames("payee_frames") {
            answer = try payer.handle(try LinkFrame(decoding: frame), now: .zero) ?? answer
        }
        #expect(answer == .receipt(try bytes("receipt")))
        // The payer's last word: an ACK of the whole reply.
        let last = payer.frames(mtu: mtu, now: .zero, rto: .seconds(1))
        guard case .ack(let received)? = last.first, last.count == 1 else {
            Issue.record("expected one ACK, got \(last)")
            return
        }
        #expect(received > 0)
        #expect(payer.isFinished)
    }
}
