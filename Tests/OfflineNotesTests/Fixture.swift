import Crypto
import DevIssuer
import OfflineNotes

/// A small offline economy: an issuer and three people, at a fixed time.
struct Fixture {
    static let now: Timestamp = 1_800_000_000
    let now = Fixture.now
    let eur = Currency("EUR")!
    let issuer: DevIssuer
    let alice = SoftwareSigner()
    let bob = SoftwareSigner()
    let carol = SoftwareSigner()

    init(maxHops: Int = 8) throws {
        issuer = try DevIssuer(currency: Currency("EUR")!, now: Fixture.now, maxHops: maxHops)
    }

    var verifier: NoteVerifier { issuer.verifier }

    func note(_ amount: UInt64, to owner: SoftwareSigner) throws -> Chain {
        try issuer.issue(amount, to: owner.publicKey, now: now)
    }

    func nonce(_ seed: UInt8 = 7) -> Nonce { Nonce(uncheckedBytes: Array(repeating: seed, count: 16)) }

    func request(to payee: SoftwareSigner, _ amount: UInt64, nonce: Nonce? = nil, expiresIn: UInt64 = 600) throws
        -> PaymentRequest
    {
        try PaymentRequest(
            payee: payee.publicKey, currency: eur, amount: amount, nonce: nonce ?? self.nonce(),
            expiresAt: now + expiresIn, payeeName: "Payee")
    }

    /// `owner` pays `amount` of `chain` to `payee` with change back to itself.
    func pay(_ chain: Chain, from owner: SoftwareSigner, to payee: PublicKeyBytes, _ amount: UInt64, nonce: Nonce? = nil)
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
    func chain(hops: Int, amount: UInt64 = 10_000, payee: SoftwareSigner, nonce: Nonce? = nil) throws -> Chain {
        let people = [alice, bob, carol]
        var holder = alice
        var chain = try note(amount, to: alice)
        for hop in 0..<hops {
            let next = hop == hops - 1 ? payee : people[(hop + 1) % 3]
            chain = try pay(chain, from: holder, to: next.publicKey, amount - UInt64(hop), nonce: hop == hops - 1 ? nonce : nil).payment
            holder = next
            // Later hops pay a little less, so there is change on every hop.
        }
        return chain
    }
}

extension VerificationError {
    /// Whether `body` throws exactly an error with this code.
    static func code<T>(of body: () throws -> T) -> String? {
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
