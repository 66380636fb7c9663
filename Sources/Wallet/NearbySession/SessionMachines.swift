import Crypto
import OfflineNotes

/// What a session machine reports to its driver.
public enum SessionEvent: Equatable, Sendable {
    /// Payee side: the payment arrived; answer with `reply(receipt:)` or `refuse(code:message:)`.
    case payment(bundle: [UInt8], transcriptHash: Digest32)
    /// Payer side: the payee's receipt, already checked to be bound to this session.
    case receipt([UInt8])
}

/// The part both roles share: one outbox, one inbox, and the frames that move them.
public protocol SessionMachine: Sendable {
    /// The id to resume with, once the handshake is known.
    var sessionID: [UInt8]? { get }
    /// True once this side has nothing left to do.
    var isFinished: Bool { get }
    /// Stream bytes the peer has acknowledged / we have received, for progress.
    var progress: SessionProgress { get }
    mutating func handle(_ frame: LinkFrame, now: Duration) throws(NearbyError) -> SessionEvent?
    /// Frames to write now: data (new or retransmitted) and a pending ACK.
    mutating func frames(mtu: Int, now: Duration, rto: Duration) -> [LinkFrame]
    /// Every frame `frames` returned has been written to the link, at `now`: the retransmission
    /// timer counts from here, so time spent waiting in the link's own queue is not taken for
    /// the peer's silence.
    mutating func written(now: Duration)
    /// The first frame on a fresh link when continuing this session.
    func resumeFrame() -> LinkFrame?
}

public struct SessionProgress: Sendable, Equatable {
    /// Bytes of this side's stream so far (for the payer: hello and sealed payment, the `n` of
    /// "k of n").
    public var sent: Int
    public var acknowledged: Int
    public var received: Int
    public var retransmissions: Int
    /// Bytes of this side's stream written to a link at least once (never below
    /// `acknowledged`): rises frame by frame, so a slow link (Bluetooth LE) shows "k of n".
    /// Set by the driver, which sees the writes.
    public var written: Int = 0
}

/// Plaintext of the payee's single record: a receipt message (its first byte is the receipt
/// type, 0x06), or a refusal `0xFF ‖ vbytes(code) ‖ vbytes(message)`.
enum Reply {
    static let refusalTag: UInt8 = 0xFF

    static func receipt(_ bytes: [UInt8]) -> [UInt8] { bytes }

    static func refusal(code: String, message: String) -> [UInt8] {
        var w = ByteWriter()
        w.u8(refusalTag)
        w.lengthPrefixed(Array(code.utf8.prefix(64)))
        w.lengthPrefixed(Array(message.utf8.prefix(512)))
        return w.bytes
    }

    static func decode(_ bytes: [UInt8]) throws(NearbyError) -> Result<[UInt8], NearbyError> {
        guard let status = bytes.first else { throw .protocolViolation("empty reply") }
        switch status {
        case Reply.refusalTag:
            var r = ByteReader(Array(bytes.dropFirst()))
            do {
                let code = try r.lengthPrefixed(max: 64, "code")
                let message = try r.lengthPrefixed(max: 512, "message")
                try r.expectEnd()
                return .failure(
                    .refused(code: String(decoding: code, as: UTF8.self), message: String(decoding: message, as: UTF8.self)))
            } catch {
                throw .protocolViolation("malformed refusal")
            }
        default:
            return .success(bytes)
        }
    }
}

/// The payer's side of one session, without I/O (the driver feeds frames and time).
///
/// Created with the payment already signed and stored by the wallet: the session only moves
/// those bytes, so a dropped link or a restart resends them and never signs again.
public struct NearbyPayer: SessionMachine {
    public let request: PaymentRequest
    public let keys: SessionKeys
    private var outbox = Outbox()
    private var inbox = Inbox()
    private var opener: RecordCipher
    private var result: Result<[UInt8], NearbyError>?

    public var sessionID: [UInt8]? { keys.sessionID }
    public var transcriptHash: Digest32 { keys.transcriptHash }
    public var isFinished: Bool { result != nil && !inbox.ackDue }
    public var progress: SessionProgress {
        SessionProgress(
            sent: outbox.bytes.count, acknowledged: outbox.acked, received: inbox.received,
            retransmissions: outbox.retransmissions)
    }

    public init(request: PaymentRequest, bundle: [UInt8], ephemeral: P256.KeyAgreement.PrivateKey = .init()) throws(NearbyError) {
        guard let sessionKey = request.sessionKey else { throw .notNearbyRequest("it carries no session key") }
        let payeeKey: P256.KeyAgreement.PublicKey
        do { payeeKey = try P256.KeyAgreement.PublicKey(compressedRepresentation: sessionKey.bytes) } catch {
            throw .handshake("the request's session key is not a P-256 point")
        }
        let hello = Hello.encode(ephemeral.publicKey)
        self.request = request
        keys = try SessionKeys(own: ephemeral, peer: payeeKey, request: request.encoded, hello: hello)
        var sealer = RecordCipher(keys: keys, direction: .payerToPayee)
        opener = RecordCipher(keys: keys, direction: .payeeToPayer)
        outbox.append(record: hello)
        outbox.append(record: try sealer.seal(bundle))
    }

    public mutating func handle(_ frame: LinkFrame, now: Duration) throws(NearbyError) -> SessionEvent? {
        switch frame {
        case .ack(let received):
            try outbox.acknowledge(received, now: now)
        case .resume(let id, let received):
            guard id == keys.sessionID else { throw .protocolViolation("resume for another session") }
            try outbox.rewind(to: received, now: now)
        case .abort(let code):
            throw .aborted(AbortCode(rawValue: code) ?? .other)
        case .data(let offset, let fin, let bytes):
            for record in try inbox.take(offset: offset, fin: fin, data: bytes) {
                guard result == nil else { throw .protocolViolation("more than one reply") }
                // The reply implies the payee has our whole stream.
                try outbox.acknowledge(outbox.bytes.count, now: now)
                switch try Reply.decode(try opener.open(record)) {
                case .failure(let refusal):
                    result = .failure(refusal)
                    throw refusal
                case .success(let receipt):
                    let parsed: Receipt
                    do { parsed = try Receipt(decoding: receipt) } catch {
                        throw .protocolViolation("malformed receipt: \(error)")
                    }
                    guard parsed.transcriptHash == keys.transcriptHash else { throw .receiptNotBound }
                    result = .success(receipt)
                    return .receipt(receipt)
                }
            }
        }
        return nil
    }

    public mutating func frames(mtu: Int, now: Duration, rto: Duration) -> [LinkFrame] {
        var out: [LinkFrame] = []
        if inbox.ackDue {
            inbox.ackDue = false
            out.append(.ack(received: inbox.received))
        }
        if result == nil { out += outbox.frames(mtu: mtu, now: now, rto: rto) }
        return out
    }

    public mutating func written(now: Duration) { outbox.written(now: now) }

    public func resumeFrame() -> LinkFrame? { .resume(sessionID: keys.sessionID, received: inbox.received) }
}

/// The payee's side of one session, without I/O.
public struct NearbyPayee: SessionMachine {
    public let request: PaymentRequest
    private let ephemeral: SendableKey<P256.KeyAgreement.PrivateKey>
    public private(set) var keys: SessionKeys?
    private var outbox = Outbox()
    private var inbox = Inbox()
    private var opener: RecordCipher?
    private var sealer: RecordCipher?
    private var recordsSeen = 0
    private var awaitingReply = false
    public private(set) var replied = false

    public var sessionID: [UInt8]? { keys?.sessionID }
    public var isFinished: Bool { replied && outbox.isFullyAcked }
    public var progress: SessionProgress {
        SessionProgress(
            sent: outbox.bytes.count, acknowledged: outbox.acked, received: inbox.received,
            retransmissions: outbox.retransmissions)
    }

    /// - Parameter ephemeral: the private half of `request.sessionKey`.
    public init(request: PaymentRequest, ephemeral: P256.KeyAgreement.PrivateKey) throws(NearbyError) {
        guard request.sessionKey?.bytes == Array(ephemeral.publicKey.compressedRepresentation) else {
            throw .handshake("the session key does not belong to this request")
        }
        self.request = request
        self.ephemeral = SendableKey(ephemeral)
    }

    public mutating func handle(_ frame: LinkFrame, now: Duration) throws(NearbyError) -> SessionEvent? {
        switch frame {
        case .ack(let received):
            try outbox.acknowledge(received, now: now)
        case .resume(let id, let received):
            guard id == keys?.sessionID else { throw .protocolViolation("resume for another session") }
            try outbox.rewind(to: received, now: now)
        case .abort(let code):
            throw .aborted(AbortCode(rawValue: code) ?? .other)
        case .data(let offset, let fin, let bytes):
            var event: SessionEvent?
            for record in try inbox.take(offset: offset, fin: fin, data: bytes) {
                recordsSeen += 1
                switch recordsSeen {
                case 1:
                    let payerKey = try Hello.decode(record)
                    let keys = try SessionKeys(own: ephemeral.value, peer: payerKey, request: request.encoded, hello: record)
                    self.keys = keys
                    opener = RecordCipher(keys: keys, direction: .payerToPayee)
                    sealer = RecordCipher(keys: keys, direction: .payeeToPayer)
                case 2:
                    guard var opener, let keys else { throw .protocolViolation("payment before hello") }
                    let bundle = try opener.open(record)
                    self.opener = opener
                    awaitingReply = true
                    event = .payment(bundle: bundle, transcriptHash: keys.transcriptHash)
                default:
                    throw .protocolViolation("the payer sent more than one payment")
                }
            }
            return event
        }
        return nil
    }

    /// Answers the payment with the wallet's signed receipt.
    public mutating func reply(receipt: [UInt8]) throws(NearbyError) { try answer(Reply.receipt(receipt)) }

    /// Answers the payment with a refusal the payer can show.
    public mutating func refuse(code: String, message: String) throws(NearbyError) {
        try answer(Reply.refusal(code: code, message: message))
    }

    private mutating func answer(_ plaintext: [UInt8]) throws(NearbyError) {
        guard awaitingReply, var sealer else { throw .protocolViolation("no payment to answer") }
        outbox.append(record: try sealer.seal(plaintext))
        self.sealer = sealer
        awaitingReply = false
        replied = true
    }

    public mutating func frames(mtu: Int, now: Duration, rto: Duration) -> [LinkFrame] {
        let data = outbox.frames(mtu: mtu, now: now, rto: rto)
        // The first bytes of the reply acknowledge the whole payment (§12.4), so an ACK that
        // would travel with them is left out; a later duplicate from the payer brings it back.
        // (A slow wallet's ACK has already gone: the driver writes it ahead of the reply.)
        let replyStarts = data.contains { if case .data(0, _, _) = $0 { true } else { false } }
        var out: [LinkFrame] = []
        if inbox.ackDue {
            inbox.ackDue = false
            if !(replyStarts && recordsSeen >= 2) { out.append(.ack(received: inbox.received)) }
        }
        return out + data
    }

    public mutating func written(now: Duration) { outbox.written(now: now) }

    public func resumeFrame() -> LinkFrame? { keys.map { .resume(sessionID: $0.sessionID, received: inbox.received) } }
}
