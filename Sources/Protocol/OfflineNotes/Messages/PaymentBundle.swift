/// What crosses the air from payer to payee: one chain per note used, each ending in a
/// transfer whose output 0 pays the request.
///
/// ## Example
///
/// The payee decodes the bytes it received and verifies them against its own request
/// (``NoteVerifier``); `paymentID` names the payment in the receipt:
///
/// ```swift
/// let bundle = try PaymentBundle(decoding: receivedBytes)
/// let payment = try verifier.verifyPayment(bundle, request: myRequest, now: now)
/// assert(payment.paymentID == bundle.paymentID)
/// ```
public struct PaymentBundle: WireMessage {
    public static let maxChains = 16

    public let chains: [Chain]

    public init(chains: [Chain]) throws(VerificationError) {
        guard (1...Self.maxChains).contains(chains.count) else {
            throw .malformed("a bundle holds 1 to \(Self.maxChains) chains")
        }
        self.chains = chains
    }

    /// Identifies the payment independently of signature bytes:
    /// SHA-256(ctx ‖ hash of each chain's last transfer body, in bundle order).
    /// Nil when a chain has no transfer (such a bundle never verifies).
    public var paymentID: Digest32? {
        var input = ProtocolHash.paymentContext
        for chain in chains {
            guard let last = chain.transfers.last else { return nil }
            input += last.hash.bytes
        }
        return ProtocolHash.sha256(input)
    }

    public var encoded: [UInt8] {
        var w = ByteWriter(capacity: 400 * chains.count)
        MessageType.paymentBundle.writeHeader(&w)
        w.u8(UInt8(chains.count))
        for chain in chains { chain.writeBody(&w) }
        return w.bytes
    }

    public init(decoding bytes: [UInt8]) throws(VerificationError) {
        var r = ByteReader(bytes)
        try MessageType.paymentBundle.readHeader(&r)
        let count = Int(try r.u8())
        guard (1...Self.maxChains).contains(count) else {
            throw .malformed("chain count \(count) is outside 1...\(Self.maxChains)")
        }
        var chains: [Chain] = []
        for _ in 0..<count { chains.append(try Chain.readBody(&r)) }
        try r.expectEnd()
        self.chains = chains
    }
}
