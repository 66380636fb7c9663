/// A note as the issuer signed it: value owned by one wallet key until it expires.
public struct IssuedNote: WireMessage {
    public let noteID: NoteID
    public let issuerKeyID: KeyID
    public let currency: Currency
    public let amount: UInt64
    public let owner: PublicKeyBytes
    public let issuedAt: Timestamp
    public let expiresAt: Timestamp
    /// The exact signed body (header included).
    public let body: [UInt8]
    public let signature: [UInt8]

    public var encoded: [UInt8] { body + signature }
    /// SHA-256 of the body: the note's content identity (signatures are malleable, bodies are not).
    public let hash: Digest32
    /// The reference of the state this note starts as.
    public var stateRef: StateRef { ProtocolHash.rootRef(noteHash: hash) }

    /// Builds and signs a note. Used by the issuer (and by tests standing in for it).
    public static func issue(
        noteID: NoteID, currency: Currency, amount: UInt64, owner: PublicKeyBytes,
        issuedAt: Timestamp, expiresAt: Timestamp, issuer: some MessageSigner
    ) throws -> IssuedNote {
        var w = ByteWriter(capacity: 80)
        MessageType.issuedNote.writeHeader(&w)
        w.raw(noteID)
        w.raw(issuer.publicKey.keyID)
        w.raw(currency.wire)
        w.varint(amount)
        w.raw(owner)
        w.varint(issuedAt)
        w.varint(expiresAt)
        let signature = try issuer.sign(.issuedNote, body: w.bytes)
        var reader = ByteReader(w.bytes + signature)
        return try read(&reader)
    }

    public init(decoding bytes: [UInt8]) throws(VerificationError) {
        var reader = ByteReader(bytes)
        self = try Self.read(&reader)
        try reader.expectEnd()
    }

    static func read(_ r: inout ByteReader) throws(VerificationError) -> IssuedNote {
        let start = r.offset
        try MessageType.issuedNote.readHeader(&r)
        let noteID = try r.fixed(NoteID.self)
        let keyID = try r.fixed(KeyID.self)
        let currency = try Currency(wire: r.raw(3))
        let amount = try r.varint("amount")
        let owner = try PublicKeyBytes.read(&r)
        let issuedAt = try r.varint("issued_at")
        let expiresAt = try r.varint("expires_at")
        let body = r.slice(from: start)
        let signature = try r.signature()
        return IssuedNote(
            noteID: noteID, issuerKeyID: keyID, currency: currency, amount: amount, owner: owner,
            issuedAt: issuedAt, expiresAt: expiresAt, body: body, signature: signature)
    }

    private init(
        noteID: NoteID, issuerKeyID: KeyID, currency: Currency, amount: UInt64, owner: PublicKeyBytes,
        issuedAt: Timestamp, expiresAt: Timestamp, body: [UInt8], signature: [UInt8]
    ) {
        self.noteID = noteID
        self.issuerKeyID = issuerKeyID
        self.currency = currency
        self.amount = amount
        self.owner = owner
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.body = body
        self.signature = signature
        self.hash = ProtocolHash.sha256(body)
    }
}
