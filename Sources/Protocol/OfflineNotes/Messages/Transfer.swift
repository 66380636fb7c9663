/// One output of a transfer: a new note state owned by `owner`.
public struct TransferOutput: Hashable, Sendable {
    public let owner: PublicKeyBytes
    public let amount: UInt64

    public init(owner: PublicKeyBytes, amount: UInt64) {
        self.owner = owner
        self.amount = amount
    }
}

/// The owner of a note state signs it over to one or more outputs. Output 0 pays the
/// requester named by `nonce`; further outputs are usually change back to the signer.
public struct Transfer: WireMessage {
    /// At most this many outputs per transfer.
    public static let maxOutputs = 8

    public let input: StateRef
    /// KeyID of the signing key; must be the owner of `input`.
    public let signerKeyID: KeyID
    public let outputs: [TransferOutput]
    public let nonce: Nonce
    public let createdAt: Timestamp
    public let body: [UInt8]
    public let signature: [UInt8]

    public var encoded: [UInt8] { body + signature }
    /// SHA-256 of the body: identifies the transfer. Two transfers of one state with different
    /// hashes are a double spend; the same hash with another signature is the same transfer.
    public let hash: Digest32

    /// The reference of output `index`.
    public func outputRef(_ index: Int) -> StateRef {
        ProtocolHash.outputRef(transferHash: hash, index: UInt8(truncatingIfNeeded: index))
    }

    /// Builds and signs a transfer of `input`. The caller guarantees it owns `input`; the
    /// wallet engine also guarantees it signs at most one transfer per state (docs/design.md §2.4).
    public static func sign(
        input: StateRef, outputs: [TransferOutput], nonce: Nonce, createdAt: Timestamp,
        signer: some MessageSigner
    ) throws -> Transfer {
        guard (1...maxOutputs).contains(outputs.count) else {
            throw SigningError.invalidMessage("a transfer has 1 to \(maxOutputs) outputs")
        }
        var w = ByteWriter(capacity: 140)
        MessageType.transfer.writeHeader(&w)
        w.raw(input)
        w.raw(signer.publicKey.keyID)
        w.u8(UInt8(outputs.count))
        for output in outputs {
            w.raw(output.owner)
            w.varint(output.amount)
        }
        w.raw(nonce)
        w.varint(createdAt)
        let signature = try signer.sign(.transfer, body: w.bytes)
        var reader = ByteReader(w.bytes + signature)
        return try read(&reader)
    }

    public init(decoding bytes: [UInt8]) throws(VerificationError) {
        var reader = ByteReader(bytes)
        self = try Self.read(&reader)
        try reader.expectEnd()
    }

    static func read(_ r: inout ByteReader) throws(VerificationError) -> Transfer {
        let start = r.offset
        try MessageType.transfer.readHeader(&r)
        let input = try r.fixed(StateRef.self)
        let signer = try r.fixed(KeyID.self)
        let count = Int(try r.u8())
        guard (1...maxOutputs).contains(count) else {
            throw .malformed("output count \(count) is outside 1...\(maxOutputs)")
        }
        var outputs: [TransferOutput] = []
        outputs.reserveCapacity(count)
        for _ in 0..<count {
            let owner = try PublicKeyBytes.read(&r)
            let amount = try r.varint("output amount")
            outputs.append(TransferOutput(owner: owner, amount: amount))
        }
        let nonce = try r.fixed(Nonce.self)
        let createdAt = try r.varint("created_at")
        let body = r.slice(from: start)
        let signature = try r.signature()
        return Transfer(
            input: input, signerKeyID: signer, outputs: outputs, nonce: nonce, createdAt: createdAt,
            body: body, signature: signature)
    }

    private init(
        input: StateRef, signerKeyID: KeyID, outputs: [TransferOutput], nonce: Nonce,
        createdAt: Timestamp, body: [UInt8], signature: [UInt8]
    ) {
        self.input = input
        self.signerKeyID = signerKeyID
        self.outputs = outputs
        self.nonce = nonce
        self.createdAt = createdAt
        self.body = body
        self.signature = signature
        self.hash = ProtocolHash.sha256(body)
    }
}
