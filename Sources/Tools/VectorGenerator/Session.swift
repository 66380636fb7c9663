import Crypto
import NearbySession
import OfflineNotes

extension Fixtures {
    /// `session.json` (§12): one whole nearby session at MTU 185, paying `messages.json`'s bundle.
    /// Fixed ephemeral keys make every byte deterministic except the receipt's ECDSA signature,
    /// which is fixed once generated.
    func sessionVectors(_ shared: SharedChains) throws -> [String: Any] {
        let bundle = shared.oneHopBundle
        let payeeEphemeral = try Self.agreementKey("payee"), payerEphemeral = try Self.agreementKey("payer")
        let request = try PaymentRequest(
            payee: bob.publicKey, currency: eur, amount: 3_000, nonce: nonce(0xB1), expiresAt: now + 600, payeeName: "Bob",
            hints: [.tcp("127.0.0.1:7000")],
            sessionKey: PublicKeyBytes(uncheckedBytes: Array(payeeEphemeral.publicKey.compressedRepresentation)))
        var payer = try NearbyPayer(request: request, bundle: bundle.encoded, ephemeral: payerEphemeral)
        let mtu = 185
        let payerFrames = payer.frames(mtu: mtu, now: .zero, rto: .seconds(1))
        var payee = try NearbyPayee(request: request, ephemeral: payeeEphemeral)
        for frame in payerFrames { _ = try payee.handle(frame, now: .zero) }
        let receipt = try Receipt.sign(
            paymentID: required(bundle.paymentID, "payment id"), nonce: nonce(0xB1), currency: eur, amount: 3_000,
            receivedAt: now, transcriptHash: payer.transcriptHash, payee: bob)
        try payee.reply(receipt: receipt.encoded)
        let payeeFrames = payee.frames(mtu: mtu, now: .zero, rto: .seconds(1))
        let keys = payer.keys.rawKeys
        return [
            "comment": """
            One nearby session (docs/protocol.md §12) at MTU \(mtu). Private keys are raw P-256 scalars. The payer's frames \
            carry its hello and the sealed bundle; the payee's carry the sealed receipt (the ACK of the payment is implied by \
            the reply and not sent). A compatible implementation given these keys, request and bundle produces these exact frames.
            """,
            "mtu": mtu,
            "payee_ephemeral_private": hex(Array(payeeEphemeral.rawRepresentation)),
            "payer_ephemeral_private": hex(Array(payerEphemeral.rawRepresentation)),
            "request": hex(request.encoded),
            "bundle": hex(bundle.encoded),
            "hello": hex([1] + Array(payerEphemeral.publicKey.compressedRepresentation)),
            "transcript_hash": payer.transcriptHash.hex,
            "key_payer_to_payee": hex(keys.payerToPayee),
            "key_payee_to_payer": hex(keys.payeeToPayer),
            "receipt": hex(receipt.encoded),
            "payer_frames": payerFrames.map { hex($0.encoded) },
            "payee_frames": payeeFrames.map { hex($0.encoded) },
        ]
    }

    /// The fixed ephemeral key of the session's `label` side.
    private static func agreementKey(_ label: String) throws -> P256.KeyAgreement.PrivateKey {
        try P256.KeyAgreement.PrivateKey(
            rawRepresentation: Array(SHA256.hash(data: Array("offline-wallet session key \(label)".utf8))))
    }
}
