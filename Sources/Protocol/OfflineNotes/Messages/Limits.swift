/// Server-set limits, signed by the issuer authority and advertised to wallets.
public struct Limits: Sendable, Hashable {
    public let currency: Currency
    /// Most value one wallet may hold in offline notes, in minor units.
    public let maxOfflineHolding: UInt64
    /// Most transfers a chain may carry before it must be refreshed online.
    public let maxHops: Int
    /// Seconds from issue to expiry of a note.
    public let noteLifetime: UInt64
    /// Seconds after expiry during which a note can still be redeemed online.
    public let redemptionGrace: UInt64
    public let issuedAt: Timestamp
    public let body: [UInt8]
    public let signature: [UInt8]

    public var encoded: [UInt8] { body + signature }

    /// The hard ceiling on hops: the chain encoding counts them in one byte.
    public static let maxHopsCeiling = 255

    public static func sign(
        currency: Currency, maxOfflineHolding: UInt64, maxHops: Int, noteLifetime: UInt64,
        redemptionGrace: UInt64, issuedAt: Timestamp, authority: some MessageSigner
    ) throws -> Limits {
        guard (0...maxHopsCeiling).contains(maxHops) else {
            throw SigningError.invalidMessage("max hops must be 0...\(maxHopsCeiling)")
        }
        var w = ByteWriter(capacity: 64)
        MessageType.limits.writeHeader(&w)
        w.raw(currency.wire)
        w.varint(maxOfflineHolding)
        w.varint(UInt64(maxHops))
        w.varint(noteLifetime)
        w.varint(redemptionGrace)
        w.varint(issuedAt)
        let signature = try authority.sign(.limits, body: w.bytes)
        return try Limits(decoding: w.bytes + signature, authority: authority.publicKey)
    }

    public init(decoding bytes: [UInt8], authority: PublicKeyBytes) throws(VerificationError) {
        try self.init(unverifiedDecoding: bytes)
        guard SignatureCheck.isValid(signature, context: .limits, body: body, key: try authority.signingKey())
        else { throw .badAuthoritySignature }
    }

    /// Decodes without checking the authority signature: for inspection only.
    public init(unverifiedDecoding bytes: [UInt8]) throws(VerificationError) {
        var r = ByteReader(bytes)
        try MessageType.limits.readHeader(&r)
        currency = try Currency(wire: r.raw(3))
        maxOfflineHolding = try r.varint("max_offline_holding")
        let hops = try r.varint("max_hops")
        guard hops <= UInt64(Self.maxHopsCeiling) else { throw .malformed("max_hops above \(Self.maxHopsCeiling)") }
        maxHops = Int(hops)
        noteLifetime = try r.varint("note_lifetime")
        redemptionGrace = try r.varint("redemption_grace")
        issuedAt = try r.varint("issued_at")
        body = r.slice(from: 0)
        signature = try r.signature()
        try r.expectEnd()
    }
}
