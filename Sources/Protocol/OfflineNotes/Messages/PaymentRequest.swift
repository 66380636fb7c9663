/// How a payer can reach the payee besides scanning a QR code back.
public struct TransportHint: Hashable, Sendable {
    public enum Kind: UInt8, Sendable {
        /// UTF-8 "host:port" of a TCP nearby-session listener.
        case tcp = 0x01
        /// 16-byte Bluetooth LE service UUID.
        case bluetooth = 0x02
        /// QR codes only; empty value.
        case qr = 0x03
    }

    /// Raw kind byte; unknown kinds are kept so newer payees still work with older payers.
    public let kindByte: UInt8
    public let value: [UInt8]
    public var kind: Kind? { Kind(rawValue: kindByte) }

    public static let maxValueLength = 128

    public init(kind: Kind, value: [UInt8]) {
        self.kindByte = kind.rawValue
        self.value = value
    }

    /// Any kind byte, known or not (decoding keeps unknown kinds; tests and vectors build them).
    public init(kindByte: UInt8, value: [UInt8]) {
        self.kindByte = kindByte
        self.value = value
    }

    public static func tcp(_ address: String) -> TransportHint {
        TransportHint(kind: .tcp, value: Array(address.utf8))
    }

    /// The address of a well-formed TCP hint (docs/protocol.md §4.5): UTF-8 `host:port`, the
    /// port 1 to 5 decimal digits (0–65535) after the last `:`, the host before it non-empty
    /// (brackets around an IPv6 host removed). Nil for any other hint: decoding keeps malformed
    /// values, and a payer ignores them like an unknown kind.
    public var tcpAddress: (host: String, port: Int)? {
        guard kind == .tcp, let text = String(validating: value, as: UTF8.self), let colon = text.lastIndex(of: ":") else {
            return nil
        }
        let digits = text[text.index(after: colon)...]
        guard (1...5).contains(digits.count), digits.allSatisfy({ ("0"..."9").contains($0) }), let port = Int(digits),
            port <= 65_535
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]"), host.count >= 2 { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    /// True for a hint a payer can use: a known kind with a well-formed value (TCP: `tcpAddress`;
    /// Bluetooth LE: exactly 16 bytes; QR only: always, its value is ignored). Unknown kinds and
    /// malformed values are ignored, never refused (§4.5).
    public var isUsable: Bool {
        switch kind {
        case .tcp: tcpAddress != nil
        case .bluetooth: value.count == 16
        case .qr: true
        case nil: false
        }
    }
}

/// What the payee shows (QR code): who to pay, how much, and the nonce that binds the
/// payment to this request. Not signed: the payee's receipt is what the payer trusts.
///
/// ## Example
///
/// The payee makes a request for 12.50 EUR that is payable for ten minutes and reachable
/// over TCP; the payer decodes the same bytes from the QR code:
///
/// ```swift
/// guard let eur = Currency("EUR"), let nonce = Nonce(bytes: randomBytes16) else { return }
/// let request = try PaymentRequest(
///     payee: payeeKey, currency: eur, amount: 1_250, nonce: nonce, expiresAt: now + 600,
///     payeeName: "Stall 4", hints: [.tcp("192.0.2.10:7000")])
/// let shown = request.encoded
///
/// let scanned = try PaymentRequest(decoding: shown)
/// print(scanned.payeeName, Amount.format(scanned.amount, currency: scanned.currency))
/// ```
public struct PaymentRequest: WireMessage {
    public static let maxNameLength = 64
    public static let maxHints = 4

    public let payee: PublicKeyBytes
    public let currency: Currency
    /// Requested amount in minor units; 0 means the payer chooses (open amount).
    public let amount: UInt64
    public let nonce: Nonce
    public let expiresAt: Timestamp
    public let payeeName: String
    public let hints: [TransportHint]
    /// Ephemeral P-256 key-agreement key (compressed) for the encrypted nearby session.
    public let sessionKey: PublicKeyBytes?

    public var isOpenAmount: Bool { amount == 0 }

    public init(
        payee: PublicKeyBytes, currency: Currency, amount: UInt64, nonce: Nonce, expiresAt: Timestamp,
        payeeName: String = "", hints: [TransportHint] = [], sessionKey: PublicKeyBytes? = nil
    ) throws(VerificationError) {
        guard payeeName.utf8.count <= Self.maxNameLength else {
            throw .malformed("payee name longer than \(Self.maxNameLength) bytes")
        }
        guard hints.count <= Self.maxHints else { throw .malformed("more than \(Self.maxHints) hints") }
        guard hints.allSatisfy({ $0.value.count <= TransportHint.maxValueLength }) else {
            throw .malformed("transport hint longer than \(TransportHint.maxValueLength) bytes")
        }
        guard amount <= Amount.max else { throw .amountOverflow }
        self.payee = payee
        self.currency = currency
        self.amount = amount
        self.nonce = nonce
        self.expiresAt = expiresAt
        self.payeeName = payeeName
        self.hints = hints
        self.sessionKey = sessionKey
    }

    public var encoded: [UInt8] {
        var w = ByteWriter(capacity: 120)
        MessageType.paymentRequest.writeHeader(&w)
        w.raw(payee)
        w.raw(currency.wire)
        w.varint(amount)
        w.raw(nonce)
        w.varint(expiresAt)
        w.lengthPrefixed(Array(payeeName.utf8))
        w.u8(UInt8(hints.count))
        for hint in hints {
            w.u8(hint.kindByte)
            w.lengthPrefixed(hint.value)
        }
        if let sessionKey {
            w.u8(1)
            w.raw(sessionKey)
        } else {
            w.u8(0)
        }
        return w.bytes
    }

    public init(decoding bytes: [UInt8]) throws(VerificationError) {
        var r = ByteReader(bytes)
        try MessageType.paymentRequest.readHeader(&r)
        let payee = try PublicKeyBytes.read(&r)
        let currency = try Currency(wire: r.raw(3))
        let amount = try r.varint("amount")
        let nonce = try r.fixed(Nonce.self)
        let expiresAt = try r.varint("expires_at")
        let nameBytes = try r.lengthPrefixed(max: Self.maxNameLength, "payee_name")
        guard let name = String(validating: nameBytes, as: UTF8.self) else {
            throw .malformed("payee_name is not valid UTF-8")
        }
        let hintCount = Int(try r.u8())
        guard hintCount <= Self.maxHints else { throw .malformed("more than \(Self.maxHints) hints") }
        var hints: [TransportHint] = []
        for _ in 0..<hintCount {
            let kind = try r.u8()
            let value = try r.lengthPrefixed(max: TransportHint.maxValueLength, "hint value")
            hints.append(TransportHint(kindByte: kind, value: value))
        }
        let sessionKey: PublicKeyBytes?
        switch try r.u8() {
        case 0: sessionKey = nil
        case 1: sessionKey = try PublicKeyBytes.read(&r)
        case let flag: throw .malformed("session key flag must be 0 or 1, found \(flag)")
        }
        try r.expectEnd()
        try self.init(
            payee: payee, currency: currency, amount: amount, nonce: nonce, expiresAt: expiresAt,
            payeeName: name, hints: hints, sessionKey: sessionKey)
    }
}
