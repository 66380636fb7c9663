import OfflineNotes

/// `NoteVerifier` on a decoded bundle (docs/protocol.md §5) against the vectors' keyset and
/// limits, one of the vectors' requests and clocks: it may only answer or throw a typed error, and
/// what it accepts must add up. A double spend it reports must come with a fraud proof that
/// convicts the signer (§7), and fraud proofs built from the input must never crash the check.
///
/// Input: request index ‖ clock index ‖ flags ‖ rest. Flag bit 0: the rest is a fraud proof
/// (chain, first transfer, second transfer as `Pieces`); otherwise it is the bundle. Flag bit 1:
/// the payee already knows every state whose reference starts with an even byte (replays).
enum VerifyTarget {
    static let name = "verify"

    static let target = FuzzTargets.Target(
        name: name, covers: "NoteVerifier.verifyPayment, NoteVerifier.verify(FraudProof)", run: run, seeds: seeds)

    struct Fixture: Sendable {
        let verifier: NoteVerifier
        let requests: [PaymentRequest]
        let clocks: [Timestamp]
    }

    static let fixture: Fixture = {
        let authority = NotesTarget.authority
        do {
            let keyset = try Keyset(decoding: Vectors.hex(Vectors.messages, "keyset", "hex"), authority: authority)
            let limits = try Limits(decoding: Vectors.hex(Vectors.messages, "limits", "hex"), authority: authority)
            var requestBytes = unique(Vectors.cases.map(\.request))
            requestBytes.append(Vectors.hex(Vectors.session, "request"))
            let requests = try unique(requestBytes).map { bytes throws(VerificationError) in try PaymentRequest(decoding: bytes) }
            var clocks = Vectors.cases.map(\.now)
            if let now = (Vectors.messages["now"] as? String).flatMap({ UInt64($0) }) { clocks.append(now) }
            clocks = Array(Set(clocks)).sorted()
            return Fixture(verifier: NoteVerifier(keyset: keyset, limits: limits), requests: requests, clocks: clocks)
        } catch {
            fatalError("the vectors' keyset, limits or requests do not decode: \(error)")
        }
    }()

    static func run(_ bytes: [UInt8]) {
        guard bytes.count >= 3 else { return }
        let f = fixture
        let request = f.requests[Int(bytes[0]) % f.requests.count]
        let now = f.clocks[Int(bytes[1]) % f.clocks.count]
        let flags = bytes[2]
        let rest = Array(bytes[3...])
        if flags & 1 != 0 {
            fraudProof(rest, now: now)
        } else {
            payment(rest, request: request, now: now, replays: flags & 2 != 0)
        }
    }

    static func payment(_ bytes: [UInt8], request: PaymentRequest, now: Timestamp, replays: Bool) {
        let verifier = fixture.verifier
        do {
            let paid = try verifier.verifyPayment(
                bytes, request: request, now: now,
                isKnownState: { replays && ($0.bytes.first ?? 1) & 1 == 0 })
            // What the verifier accepts must add up: the bundle it read is the input, every state
            // is the payee's, in the request's currency, counted once, and the total is theirs.
            guard paid.bundle.encoded == bytes else { fail(name, "accepted bundle re-encodes differently") }
            guard paid.received.count == paid.bundle.chains.count else { fail(name, "a chain without a received state") }
            guard Set(paid.received.map(\.ref)).count == paid.received.count else { fail(name, "one state counted twice") }
            var total: UInt64 = 0
            for state in paid.received {
                guard state.owner == request.payee else { fail(name, "accepted a state not owned by the payee") }
                guard state.currency == request.currency else { fail(name, "accepted another currency") }
                guard state.amount > 0 else { fail(name, "accepted a zero state") }
                guard !(replays && (state.ref.bytes.first ?? 1) & 1 == 0) else { fail(name, "accepted a known state (replay)") }
                let (sum, overflow) = total.addingReportingOverflow(state.amount)
                guard !overflow else { fail(name, "accepted amounts that overflow") }
                total = sum
            }
            guard total == paid.amount else { fail(name, "total \(paid.amount) is not the sum \(total) of the states") }
            guard request.isOpenAmount || total == request.amount else { fail(name, "accepted the wrong amount") }
            guard paid.nonce == request.nonce, paid.currency == request.currency else {
                fail(name, "payment bound to another request")
            }
        } catch .doubleSpend(let proof) {
            // A reported double spend must be provable to anyone with the keyset, naming the signer.
            let cheater: PublicKeyBytes
            do { cheater = try verifier.verify(proof, now: now) } catch {
                fail(name, "the verifier reported a double spend whose fraud proof does not verify: \(error)")
            }
            guard cheater == proof.cheater else { fail(name, "the fraud proof names another key than its state's owner") }
        } catch {
            // Any other typed refusal is the expected outcome for hostile input.
        }
    }

    static func fraudProof(_ bytes: [UInt8], now: Timestamp) {
        let pieces = Pieces.split(bytes, count: 3)
        guard let chain = try? Chain(decoding: pieces[0]), let first = try? Transfer(decoding: pieces[1]),
            let second = try? Transfer(decoding: pieces[2])
        else { return }
        let proof = FraudProof(chain: chain, first: first, second: second)
        guard let cheater = try? fixture.verifier.verify(proof, now: now) else { return }
        // A proof that verifies convicts exactly the owner of the proven state for two different
        // transfers of that state.
        guard cheater == proof.cheater else { fail(name, "a verified fraud proof names another key than its state's owner") }
        guard first.input == chain.heldRef, second.input == chain.heldRef, first.hash != second.hash else {
            fail(name, "a verified fraud proof does not hold two different spends of its state")
        }
    }

    /// Every verification vector as a bundle input, and the fraud proof of the double-spend vector.
    static func seeds() throws -> [[UInt8]] {
        let f = fixture
        var out: [[UInt8]] = []
        for c in Vectors.cases {
            guard let requestIndex = f.requests.firstIndex(where: { $0.encoded == c.request }),
                let clockIndex = f.clocks.firstIndex(of: c.now)
            else { throw SeedError("vector \(c.name): request or clock missing from the fixture") }
            let header = [UInt8(requestIndex), UInt8(clockIndex)]
            out.append(header + [0] + c.bundle)
            out.append(header + [2] + c.bundle)
            do {
                _ = try f.verifier.verifyPayment(c.bundle, request: f.requests[requestIndex], now: c.now)
            } catch .doubleSpend(let proof) {
                out.append(header + [1] + Pieces.join([proof.chain.encoded, proof.first.encoded, proof.second.encoded]))
            } catch {}
        }
        return out
    }
}
