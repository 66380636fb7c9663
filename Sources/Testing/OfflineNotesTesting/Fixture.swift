import DevIssuer
import OfflineNotes

/// A small offline economy: a dev issuer and three people (Alice, Bob, Carol), at a fixed time,
/// and the real messages they exchange (requests, payments, receipts). Shared by the protocol's
/// tests and the app models' tests (which cut these messages into QR frames).
public struct Fixture: Sendable {
    public static let now: Timestamp = 1_800_000_000
    public let now = Fixture.now
    public let eur = Currency("EUR")!
    public let issuer: DevIssuer
    public let alice = SoftwareSigner()
    public let bob = SoftwareSigner()
    public let carol = SoftwareSigner()

    public init(maxHops: Int = 8) throws {
        issuer = try DevIssuer(currency: Currency("EUR")!, now: Fixture.now, maxHops: maxHops)
    }

    public var verifier: NoteVerifier { issuer.verifier }

    public func note(_ amount: UInt64, to owner: SoftwareSigner) throws -> Chain {
        try issuer.issue(amount, to: owner.publicKey, now: now)
    }

    public func nonce(_ seed: UInt8 = 7) -> Nonce { Nonce(uncheckedBytes: Array(repeating: seed, count: 16)) }

    public func request(
        to payee: SoftwareSigner, _ amount: UInt64, nonce: Nonce? = nil, expiresIn: UInt64 = 600, name: String = "Payee"
    )
        throws -> PaymentRequest
    {
        try PaymentRequest(
            payee: payee.publicKey, currency: eur, amount: amount, nonce: nonce ?? self.nonce(),
            expiresAt: now + expiresIn, payeeName: name)
    }

    /// Bob asks for `amount` (0: any amount).
    public func request(_ amount: UInt64, name: String = "Bob's Café") throws -> PaymentRequest {
        try request(to: bob, amount, name: name)
    }

    /// Alice pays Bob `amount` from `chains` fresh notes of 10 000 each (more chains, a bigger
    /// bundle), with change back to her.
    public func bundle(_ amount: UInt64 = 2_500, chains: Int = 1) throws -> PaymentBundle {
        try PaymentBundle(
            chains: (0..<chains).map { _ in try pay(try note(10_000, to: alice), from: alice, to: bob.publicKey, amount).payment }
        )
    }

    /// Bob's receipt for `bundle` (of `amount`).
    public func receipt(for bundle: PaymentBundle, amount: UInt64 = 2_500) throws -> Receipt {
        try Receipt.sign(paymentID: bundle.paymentID!, nonce: nonce(), currency: eur, amount: amount, receivedAt: now, payee: bob)
    }

    /// `owner` pays `amount` of `chain` to `payee` with change back to itself.
    public func pay(
        _ chain: Chain, from owner: SoftwareSigner, to payee: PublicKeyBytes, _ amount: UInt64, nonce: Nonce? = nil
    )
        throws -> (payment: Chain, change: Chain?)
    {
        let held = chain.heldOutput!
        var outputs = [TransferOutput(owner: payee, amount: amount)]
        if held.amount > amount { outputs.append(TransferOutput(owner: owner.publicKey, amount: held.amount - amount)) }
        let t = try Transfer.sign(
            input: chain.heldRef, outputs: outputs, nonce: nonce ?? self.nonce(), createdAt: now, signer: owner)
        return (chain.appending(t, holding: 0), outputs.count > 1 ? chain.appending(t, holding: 1) : nil)
    }

    /// A chain of `hops` transfers ending with `payee`, passing through alice, bob, carol.
    public func chain(hops: Int, amount: UInt64 = 10_000, payee: SoftwareSigner, nonce: Nonce? = nil) throws -> Chain {
        let people = [alice, bob, carol]
        var holder = alice
        var chain = try note(amount, to: alice)
        for hop in 0..<hops {
            let next = hop == hops - 1 ? payee : people[(hop + 1) % 3]
            chain = try pay(chain, from: holder, to: next.publicKey, amount - UInt64(hop), nonce: hop == hops - 1 ? nonce : nil)
                .payment
            holder = next
            // Later hops pay a little less, so there is change on every hop.
        }
        return chain
    }
}

extension VerificationError {
    /// Whether `body` throws exactly an error with this code.
    public static func code<T>(of body: () throws -> T) -> String? {
        do {
            _ = try body()
            return nil
        } catch let e as VerificationError {
            return e.code
        } catch {
            return "other: \(error)"
        }
    }
}
