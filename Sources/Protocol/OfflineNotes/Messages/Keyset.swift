import Crypto

/// One issuing key and the window in which notes it signs may be issued.
public struct IssuerKey: Hashable, Sendable {
    public let keyID: KeyID
    public let publicKey: PublicKeyBytes
    /// Notes are valid only if `validFrom <= issuedAt < validUntil`.
    public let validFrom: Timestamp
    public let validUntil: Timestamp

    public init(publicKey: PublicKeyBytes, validFrom: Timestamp, validUntil: Timestamp) {
        self.keyID = publicKey.keyID
        self.publicKey = publicKey
        self.validFrom = validFrom
        self.validUntil = validUntil
    }
}

/// The issuer's published signing keys, signed by its long-term authority key, which
/// wallets pin. Only constructible by signing it or by verifying its signature.
public struct Keyset: Sendable, Hashable {
    public static let maxKeys = 32

    /// Increases with every published keyset; wallets ignore older ones.
    public let sequence: UInt64
    public let issuedAt: Timestamp
    public let keys: [IssuerKey]
    public let body: [UInt8]
    public let signature: [UInt8]
    /// Points decompressed once, so chain verification never re-parses issuer keys.
    let parsed: [KeyID: SendableKey<P256.Signing.PublicKey>]

    public var encoded: [UInt8] { body + signature }

    public func key(_ id: KeyID) -> IssuerKey? { keys.first { $0.keyID == id } }

    func parsedKey(_ id: KeyID) -> P256.Signing.PublicKey? { parsed[id]?.value }

    public static func sign(
        sequence: UInt64, issuedAt: Timestamp, keys: [IssuerKey], authority: some MessageSigner
    ) throws -> Keyset {
        guard (1...maxKeys).contains(keys.count) else {
            throw SigningError.invalidMessage("a keyset holds 1 to \(maxKeys) keys")
        }
        var w = ByteWriter(capacity: 64 + 60 * keys.count)
        MessageType.keyset.writeHeader(&w)
        w.varint(sequence)
        w.varint(issuedAt)
        w.u8(UInt8(keys.count))
        for key in keys {
            w.raw(key.keyID)
            w.raw(key.publicKey)
            w.varint(key.validFrom)
            w.varint(key.validUntil)
        }
        let signature = try authority.sign(.keyset, body: w.bytes)
        return try Keyset(decoding: w.bytes + signature, authority: authority.publicKey)
    }

    /// Decodes and checks the authority signature.
    public init(decoding bytes: [UInt8], authority: PublicKeyBytes) throws(VerificationError) {
        try self.init(unverifiedDecoding: bytes)
        guard SignatureCheck.isValid(signature, context: .keyset, body: body, key: try authority.signingKey())
        else { throw .badAuthoritySignature }
    }

    /// Decodes without checking the authority signature: for inspection only. The verifier
    /// must be given a keyset decoded with `init(decoding:authority:)`.
    public init(unverifiedDecoding bytes: [UInt8]) throws(VerificationError) {
        var r = ByteReader(bytes)
        try MessageType.keyset.readHeader(&r)
        sequence = try r.varint("sequence")
        issuedAt = try r.varint("issued_at")
        let count = Int(try r.u8())
        guard (1...Self.maxKeys).contains(count) else {
            throw .malformed("key count \(count) is outside 1...\(Self.maxKeys)")
        }
        var keys: [IssuerKey] = []
        var parsed: [KeyID: SendableKey<P256.Signing.PublicKey>] = [:]
        for _ in 0..<count {
            let id = try r.fixed(KeyID.self)
            let publicKey = try PublicKeyBytes.read(&r)
            let from = try r.varint("valid_from")
            let until = try r.varint("valid_until")
            guard publicKey.keyID == id else { throw .malformed("key id does not match its key") }
            guard parsed[id] == nil else { throw .malformed("key \(id) listed twice") }
            guard from < until else { throw .malformed("key \(id) has an empty validity window") }
            parsed[id] = SendableKey(try publicKey.signingKey())
            keys.append(IssuerKey(publicKey: publicKey, validFrom: from, validUntil: until))
        }
        self.keys = keys
        self.parsed = parsed
        body = r.slice(from: 0)
        signature = try r.signature()
        try r.expectEnd()
    }

    public static func == (lhs: Keyset, rhs: Keyset) -> Bool { lhs.encoded == rhs.encoded }
    public func hash(into hasher: inout Hasher) { hasher.combine(body) }
}
