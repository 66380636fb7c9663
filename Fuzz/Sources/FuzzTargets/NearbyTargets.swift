import Crypto
import NearbySession
import OfflineNotes

/// One link frame of a nearby session (docs/protocol.md §12.3): DATA, ACK, RESUME, ABORT. What
/// decodes must re-encode to the input bytes.
enum NearbyFrameTarget {
    static let name = "nearby-frame"

    static let target = FuzzTargets.Target(name: name, covers: "NearbySession: LinkFrame(decoding:)", run: run, seeds: seeds)

    static func run(_ bytes: [UInt8]) {
        guard let frame = try? LinkFrame(decoding: bytes) else { return }
        guard frame.encoded == bytes else { fail(name, "\(frame) re-encodes differently: a non-canonical frame was accepted") }
        guard (try? LinkFrame(decoding: frame.encoded)) == frame else { fail(name, "a frame does not decode its own encoding") }
    }

    static func seeds() throws -> [[UInt8]] {
        let session = Vectors.session
        var out = NearbySessionTarget.vectorFrames("payer_frames") + NearbySessionTarget.vectorFrames("payee_frames")
        out += [
            LinkFrame.ack(received: 0).encoded, LinkFrame.ack(received: 300).encoded,
            LinkFrame.resume(sessionID: Array(Vectors.hex(session, "transcript_hash").prefix(8)), received: 34).encoded,
            LinkFrame.abort(1).encoded, LinkFrame.data(offset: 200, fin: true, bytes: [1, 2, 3]).encoded,
        ]
        return out
    }
}

/// The session machines (docs/protocol.md §12): hello, the sealed records (AES-GCM with counter
/// nonces), stream reassembly, ACK / RESUME / ABORT handling and the reply, driven by hostile
/// frames. The keys are the vectors' (docs/vectors/session.json), so the vectors' own frames
/// make a whole session and mutations of them reach every state. The machines may only return
/// events or throw `NearbyError`; a payment the payee reports is the vector's bundle (nobody
/// else can seal one), and a receipt the payer reports is bound to the session.
///
/// Input: role (even: payee, fed the payer's frames; odd: payer, fed the payee's) ‖ frames,
/// each a 1-byte length and its bytes.
enum NearbySessionTarget {
    static let name = "nearby-session"

    static let target = FuzzTargets.Target(
        name: name, covers: "NearbySession: NearbyPayee / NearbyPayer handle(_:) (hello, records, reply, stream)", run: run,
        seeds: seeds)

    struct Fixture: Sendable {
        let request: PaymentRequest
        let bundle: [UInt8]
        let receipt: [UInt8]
        let payeeKey: P256.KeyAgreement.PrivateKey
        let payerKey: P256.KeyAgreement.PrivateKey
        let mtu: Int
    }

    static let fixture: Fixture = {
        let s = Vectors.session
        do {
            return Fixture(
                request: try PaymentRequest(decoding: Vectors.hex(s, "request")),
                bundle: Vectors.hex(s, "bundle"), receipt: Vectors.hex(s, "receipt"),
                payeeKey: try P256.KeyAgreement.PrivateKey(rawRepresentation: Vectors.hex(s, "payee_ephemeral_private")),
                payerKey: try P256.KeyAgreement.PrivateKey(rawRepresentation: Vectors.hex(s, "payer_ephemeral_private")),
                mtu: s["mtu"] as? Int ?? 185)
        } catch {
            fatalError("the session vectors do not load: \(error)")
        }
    }()

    static func frames(_ bytes: ArraySlice<UInt8>) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let length = Int(bytes[i])
            i += 1
            let end = min(bytes.endIndex, i + length)
            out.append(Array(bytes[i..<end]))
            i = end
        }
        return out
    }

    static func run(_ bytes: [UInt8]) {
        guard let role = bytes.first else { return }
        let f = fixture
        let input = frames(bytes.dropFirst())
        if role & 1 == 0 {
            guard var payee = try? NearbyPayee(request: f.request, ephemeral: f.payeeKey) else {
                fail(name, "payee does not start")
            }
            for (step, raw) in input.enumerated() {
                guard let frame = try? LinkFrame(decoding: raw) else { continue }
                let event: SessionEvent?
                do { event = try payee.handle(frame, now: .milliseconds(step * 10)) } catch { return }
                if case .payment(let bundle, let transcript)? = event {
                    guard bundle == f.bundle else { fail(name, "the payee opened a payment nobody sealed") }
                    guard transcript == payee.keys?.transcriptHash else {
                        fail(name, "payment reported under another transcript")
                    }
                    do {
                        if role & 2 == 0 {
                            try payee.reply(receipt: f.receipt)
                        } else {
                            try payee.refuse(code: "wrong_amount", message: "no")
                        }
                    } catch {
                        fail(name, "the payee cannot answer the payment it reported: \(error)")
                    }
                }
                _ = payee.frames(mtu: f.mtu, now: .milliseconds(step * 10), rto: .milliseconds(50))
            }
        } else {
            guard var payer = try? NearbyPayer(request: f.request, bundle: f.bundle, ephemeral: f.payerKey) else {
                fail(name, "payer does not start")
            }
            for (step, raw) in input.enumerated() {
                _ = payer.frames(mtu: f.mtu, now: .milliseconds(step * 10), rto: .milliseconds(50))
                guard let frame = try? LinkFrame(decoding: raw) else { continue }
                let event: SessionEvent?
                do { event = try payer.handle(frame, now: .milliseconds(step * 10)) } catch { return }
                if case .receipt(let receipt)? = event {
                    guard let parsed = try? Receipt(decoding: receipt), parsed.transcriptHash == payer.transcriptHash else {
                        fail(name, "the payer reported a receipt not bound to its session")
                    }
                }
            }
        }
    }

    static func vectorFrames(_ key: String) -> [[UInt8]] {
        guard let list = Vectors.session[key] as? [String] else { fatalError("vectors: session.\(key)") }
        return list.map { text in
            guard let bytes = decodeHex(text) else { fatalError("vectors: session.\(key) is not hex") }
            return bytes
        }
    }

    static func encode(role: UInt8, _ frames: [[UInt8]]) -> [UInt8] {
        [role] + frames.flatMap { [UInt8($0.count)] + $0 }
    }

    static func seeds() throws -> [[UInt8]] {
        let payer = vectorFrames("payer_frames"), payee = vectorFrames("payee_frames")
        let ack = LinkFrame.ack(received: payee.reduce(0) { $0 + $1.count }).encoded
        return [
            encode(role: 0, payer), encode(role: 2, payer), encode(role: 0, payer.reversed()),
            encode(role: 0, payer + [ack]),
            encode(role: 1, payee), encode(role: 1, [LinkFrame.ack(received: 10).encoded] + payee),
        ]
    }
}
