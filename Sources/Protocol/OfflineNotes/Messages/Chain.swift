/// Proof of one note state: the issued note, the transfers leading to the state, and which
/// output of the last transfer is meant. With no transfers the state is the note itself.
///
/// A `Chain` is *decoded*, not *verified*: use `ChainVerifier` before trusting it.
public struct Chain: WireMessage {
    public let note: IssuedNote
    public let transfers: [Transfer]
    /// Output of the last transfer this chain proves (0 when there are no transfers).
    public let heldIndex: UInt8

    public init(note: IssuedNote, transfers: [Transfer] = [], heldIndex: UInt8 = 0) {
        self.note = note
        self.transfers = transfers
        self.heldIndex = heldIndex
    }

    public var hops: Int { transfers.count }

    /// The claimed reference of the held state (meaningful only once verified).
    public var heldRef: StateRef {
        guard let last = transfers.last else { return note.stateRef }
        return last.outputRef(Int(heldIndex))
    }

    /// The claimed held output, or nil when `heldIndex` is out of range.
    public var heldOutput: TransferOutput? {
        guard let last = transfers.last else {
            return heldIndex == 0 ? TransferOutput(owner: note.owner, amount: note.amount) : nil
        }
        return Int(heldIndex) < last.outputs.count ? last.outputs[Int(heldIndex)] : nil
    }

    /// The chain extended by `transfer`, holding its output `index`.
    public func appending(_ transfer: Transfer, holding index: UInt8) -> Chain {
        Chain(note: note, transfers: transfers + [transfer], heldIndex: index)
    }

    /// The same proof, holding another output of the last transfer.
    public func holding(_ index: UInt8) -> Chain {
        Chain(note: note, transfers: transfers, heldIndex: index)
    }

    /// Standalone form: header, then the body that bundles embed.
    public var encoded: [UInt8] {
        var w = ByteWriter(capacity: 64 + 200 * (transfers.count + 1))
        MessageType.chain.writeHeader(&w)
        writeBody(&w)
        return w.bytes
    }

    public init(decoding bytes: [UInt8]) throws(VerificationError) {
        var reader = ByteReader(bytes)
        try MessageType.chain.readHeader(&reader)
        self = try Self.readBody(&reader)
        try reader.expectEnd()
    }

    func writeBody(_ w: inout ByteWriter) {
        w.raw(note.encoded)
        w.u8(UInt8(transfers.count))
        for t in transfers { w.raw(t.encoded) }
        w.u8(heldIndex)
    }

    static func readBody(_ r: inout ByteReader) throws(VerificationError) -> Chain {
        let note = try IssuedNote.read(&r)
        let hops = Int(try r.u8())
        var transfers: [Transfer] = []
        transfers.reserveCapacity(hops)
        for _ in 0..<hops { transfers.append(try Transfer.read(&r)) }
        let held = try r.u8()
        // §4.3 makes this a decoding rule: a chain without transfers holds the note itself, so
        // any other index is refused here, before (and so ahead of) every check of §5.
        guard hops > 0 || held == 0 else { throw .malformed("a chain without transfers must hold index 0, found \(held)") }
        return Chain(note: note, transfers: transfers, heldIndex: held)
    }
}
