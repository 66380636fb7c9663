import Crypto

/// The payee's signed acknowledgement. The payer shows "paid" only once it holds one.
public struct Receipt: WireMessage {
    public let paymentID: Digest32
    public let nonce: Nonce
    public let payee: PublicKeyBytes
    public let currency: Currency
    public let amount: UInt64
    public let receivedAt: Timestamp
    /// Hash of the nearby-session transcript, when the payment came through one.
    public let transcriptHash: Digest32?
    public let body: [UInt8]
    public let signature: [UInt8]

    public var encoded: [UInt8] { body + signature }

    public static func sign(
        paymentID: Digest32, nonce: Nonce, currency: Currency, amount: UInt64, receivedAt: Timestamp,
        transcriptHash: Digest32? = nil, payee: some MessageSigner
    ) throws -> Receipt {
        var w = ByteWriter(capacity: 160)
        MessageType.receipt.writeHeader(&w)
        w.raw(paymentID)
        w.raw(nonce)
        w.raw(payee.publicKey)
        w.raw(currency.wire)
        w.varint(amount)
        w.varint(receivedAt)
        if let transcriptHash {
            w.u8(1)
            w.raw(transcriptHash)
        } else {
            w.u8(0)
        }
        let signature = try payee.sign(.receipt, body: w.bytes)
        return try Receipt(decoding: w.bytes + signature)
    }

    public init(decoding bytes: [UInt8]) throws(VerificationError) {
        var r = ByteReader(bytes)
        try MessageType.receipt.readHeader(&r)
        paymentID = try r.fixed(Digest32.self)
        nonce = try r.fixed(Nonce.self)
        payee = try PublicKeyBytes.read(&r)
        currency = try Currency(wire: r.raw(3))
        amount = try r.varint("amount")
        receivedAt = try r.varint("received_at")
        switch try r.u8() {
        case 0: transcriptHash = nil
        case 1: transcriptHash = try r.fixed(Digest32.self)
        case let flag: throw .malformed("transcript flag must be 0 or 1, found \(flag)")
        }
        body = r.slice(from: 0)
        signature = try r.signature()
        try r.expectEnd()
    }

    /// Checks that this receipt is the payee's signature over exactly this payment.
    public func verify(
        for request: PaymentRequest, paymentID expected: Digest32, amount expectedAmount: UInt64
    )
        throws(VerificationError)
    {
        guard payee == request.payee else { throw .badReceipt("signed by another key than the payee's") }
        guard nonce == request.nonce else { throw .badReceipt("for another request") }
        guard paymentID == expected else { throw .badReceipt("for another payment") }
        guard currency == request.currency, amount == expectedAmount else {
            throw .badReceipt("amount or currency differs from the payment")
        }
        let key = try payee.signingKey()
        guard SignatureCheck.isValid(signature, context: .receipt, body: body, key: key) else {
            throw .badReceipt("signature is invalid")
        }
    }
}
