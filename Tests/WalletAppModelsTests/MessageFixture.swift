import DevIssuer
import OfflineNotes
import QRPayload

/// Real messages to scan: a request, a payment bundle and a receipt made with a dev issuer
/// (after Tests/OfflineNotesTests/Fixture.swift).
struct MessageFixture {
    static let now: Timestamp = 1_800_000_000
    let now = MessageFixture.now
    let eur = Currency("EUR")!
    let issuer: DevIssuer
    let alice = SoftwareSigner()
    let bob = SoftwareSigner()

    init() throws {
        issuer = try DevIssuer(currency: Currency("EUR")!, now: MessageFixture.now)
    }

    let nonce = Nonce(uncheckedBytes: Array(repeating: 7, count: 16))

    /// Bob asks for `amount`.
    func request(_ amount: UInt64, name: String = "Bob's Café") throws -> PaymentRequest {
        try PaymentRequest(
            payee: bob.publicKey, currency: eur, amount: amount, nonce: nonce, expiresAt: now + 600, payeeName: name)
    }

    /// Alice pays Bob `amount` from `chains` notes of 10 000 each (more chains, more frames).
    func bundle(_ amount: UInt64 = 2_500, chains: Int = 1) throws -> PaymentBundle {
        let paid = try (0..<chains).map { _ in
            let note = try issuer.issue(10_000, to: alice.publicKey, now: now)
            let t = try Transfer.sign(
                input: note.heldRef,
                outputs: [TransferOutput(owner: bob.publicKey, amount: amount), TransferOutput(owner: alice.publicKey, amount: 10_000 - amount)],
                nonce: nonce, createdAt: now, signer: alice)
            return note.appending(t, holding: 0)
        }
        return try PaymentBundle(chains: paid)
    }

    /// Bob's receipt for `bundle`.
    func receipt(for bundle: PaymentBundle) throws -> Receipt {
        try Receipt.sign(
            paymentID: bundle.paymentID!, nonce: nonce, currency: eur, amount: 2_500, receivedAt: now, payee: bob)
    }

    /// `message` cut into exactly `count` QR frames.
    func frames(_ message: some WireMessage, count: Int) throws -> [String] {
        let size = message.encoded.count
        let frames = try QRFrames.encode(message.encoded, chunkSize: (size + count - 1) / count)
        precondition(frames.count == count, "\(size) bytes do not cut into \(count) frames")
        return frames
    }

    /// `message` as QR frames of at most `chunkSize` bytes.
    func frames(_ message: some WireMessage, chunkSize: Int = 600) throws -> [String] {
        try QRFrames.encode(message.encoded, chunkSize: chunkSize)
    }
}
