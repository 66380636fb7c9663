import OfflineNotes

/// Why a nearby session failed, with a stable `code` for scripts and logs.
public enum NearbyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The request has no session key or no usable transport hint.
    case notNearbyRequest(String)
    case handshake(String)
    case unsupportedVersion(UInt8)
    /// A frame does not follow docs/protocol.md §12.
    case protocolViolation(String)
    /// A record did not authenticate: wrong keys, tampering or a misdelivered frame.
    case decryptionFailed
    /// The peer ended the session (code from the ABORT frame).
    case aborted(AbortCode)
    /// The payee refused the payment (its wallet's error code and message).
    case refused(code: String, message: String)
    /// The receipt is not bound to this session's transcript.
    case receiptNotBound
    /// The link kept failing; the payment bytes are kept and can be sent again.
    case linkLost(String)
    case timedOut

    public var code: String {
        switch self {
        case .notNearbyRequest: "not_nearby_request"
        case .handshake: "handshake_failed"
        case .unsupportedVersion: "unsupported_version"
        case .protocolViolation: "protocol_violation"
        case .decryptionFailed: "decryption_failed"
        case .aborted: "aborted"
        case .refused(let code, _): code
        case .receiptNotBound: "receipt_not_bound"
        case .linkLost: "link_lost"
        case .timedOut: "timed_out"
        }
    }

    public var description: String {
        switch self {
        case .notNearbyRequest(let why): "This request cannot be paid nearby: \(why). Pay it by QR instead."
        case .handshake(let why): "The secure session could not be set up: \(why)."
        case .unsupportedVersion(let v): "The other device speaks session version \(v), which this one does not."
        case .protocolViolation(let why): "The other device broke the session protocol: \(why)."
        case .decryptionFailed: "A message did not authenticate; the session was stopped. Try again."
        case .aborted(let code): "The other device ended the session (\(code))."
        case .refused(_, let message): "The payee refused the payment: \(message)"
        case .receiptNotBound: "The receipt is not bound to this session; the payment is not confirmed."
        // Whether a payment was signed and kept is the flow's to say (`NearbyPayError`, the
        // command line's outcome sentence): a session fails the same way before and after.
        case .linkLost(let why): "The link was lost (\(why))."
        case .timedOut: "The other device did not answer in time."
        }
    }
}

/// Reasons carried by an ABORT frame.
public enum AbortCode: UInt64, Error, Sendable, CustomStringConvertible {
    case unknownSession = 1
    case protocolError = 2
    case decryptionFailed = 3
    case busy = 4
    case cancelled = 5
    case other = 63

    public var description: String {
        switch self {
        case .unknownSession: "unknown session"
        case .protocolError: "protocol error"
        case .decryptionFailed: "decryption failed"
        case .busy: "busy"
        case .cancelled: "cancelled"
        case .other: "other"
        }
    }
}
