import OfflineNotes

/// A 128-bit Bluetooth UUID (RFC 4122 byte order: the bytes as the canonical string reads them).
///
/// Platform-neutral: the app's adapter turns `string` into `CBUUID(string:)` and a
/// `CBUUID`'s `uuidString` back with `init?(string:)`.
public struct GATTUUID: Hashable, Sendable, CustomStringConvertible {
    /// The 16 bytes, most significant first.
    public let bytes: [UInt8]

    /// `bytes` must be exactly 16 bytes; nil otherwise.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses the canonical 8-4-4-4-12 form (either case), as `CBUUID.uuidString` gives it.
    /// Nil for anything else (a 16- or 32-bit short form, missing dashes, non-hex digits).
    public init?(string: String) {
        let groups = string.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        let hex = Array(groups.joined().utf8)
        var i = 0
        while i < hex.count {
            guard let high = Self.nibble(hex[i]), let low = Self.nibble(hex[i + 1]) else { return nil }
            bytes.append(high << 4 | low)
            i += 2
        }
        self.bytes = bytes
    }

    /// A fresh random RFC 4122 version 4 UUID (122 random bits; version and variant bits set).
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> GATTUUID {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // variant 10xx (RFC 4122)
        return GATTUUID(uncheckedBytes: bytes)
    }

    /// A fresh random version 4 UUID from the system's secure generator.
    public static func random() -> GATTUUID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// The canonical upper-case 8-4-4-4-12 string `CBUUID(string:)` takes.
    public var string: String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (i, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(i) { out.append(UInt8(ascii: "-")) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public var description: String { string }

    init(uncheckedBytes: [UInt8]) { bytes = uncheckedBytes }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// The wallet's Bluetooth LE GATT profile (docs/protocol.md §12.8): the UUIDs, the advertised
/// local name and the packet size. Both the payee's peripheral and the payer's central follow it.
public enum GATTProfile {
    /// Advertised by every wallet that is showing a request, so the Nearby devices list can
    /// scan for wallets without knowing a request: `6E0F7A52-3C1B-4D8E-9A47-2B5D8C3E1F60`.
    /// Advertised only, never a GATT service.
    public static let discoveryService = GATTUUID(uncheckedBytes: [
        0x6E, 0x0F, 0x7A, 0x52, 0x3C, 0x1B, 0x4D, 0x8E, 0x9A, 0x47, 0x2B, 0x5D, 0x8C, 0x3E, 0x1F, 0x60,
    ])

    /// Payer → payee: one session frame per *write without response*:
    /// `6E0F7A53-3C1B-4D8E-9A47-2B5D8C3E1F60`.
    public static let inboxCharacteristic = GATTUUID(uncheckedBytes: [
        0x6E, 0x0F, 0x7A, 0x53, 0x3C, 0x1B, 0x4D, 0x8E, 0x9A, 0x47, 0x2B, 0x5D, 0x8C, 0x3E, 0x1F, 0x60,
    ])

    /// Payee → payer: one session frame per *notification* (the payer subscribes first):
    /// `6E0F7A54-3C1B-4D8E-9A47-2B5D8C3E1F60`.
    public static let outboxCharacteristic = GATTUUID(uncheckedBytes: [
        0x6E, 0x0F, 0x7A, 0x54, 0x3C, 0x1B, 0x4D, 0x8E, 0x9A, 0x47, 0x2B, 0x5D, 0x8C, 0x3E, 0x1F, 0x60,
    ])

    /// The smallest packet: the default ATT MTU (23) − 3.
    public static let minimumPacketLength = 20
    /// The largest packet: the longest attribute value ATT allows.
    public static let maximumPacketLength = 512

    /// Session-frame bytes per write or notification for a negotiated ATT MTU: `attMTU − 3`
    /// (the ATT opcode and handle), clamped to [20, 512].
    public static func packetLength(attMTU: Int) -> Int {
        clampPacketLength(attMTU - 3)
    }

    /// A packet length reported by the radio (CoreBluetooth's `maximumWriteValueLength(for:
    /// .withoutResponse)` or `maximumUpdateValueLength`), clamped to [20, 512].
    public static func clampPacketLength(_ length: Int) -> Int {
        min(maximumPacketLength, max(minimumPacketLength, length))
    }

    // MARK: The per-request session service

    /// A fresh session service UUID for one request (random version 4).
    public static func makeSessionService() -> GATTUUID { GATTUUID.random() }

    /// The request's transport hint naming `service`: kind 0x02, the 16 UUID bytes.
    public static func hint(for service: GATTUUID) -> TransportHint {
        TransportHint(kind: .bluetooth, value: service.bytes)
    }

    /// The session service a Bluetooth hint names; nil for another kind or a value that is not
    /// exactly 16 bytes (a malformed hint is ignored, as an unknown kind is).
    public static func sessionService(in hint: TransportHint) -> GATTUUID? {
        guard hint.kind == .bluetooth else { return nil }
        return GATTUUID(bytes: hint.value)
    }

    /// The session service of the request's first well-formed Bluetooth hint, if any.
    public static func sessionService(in request: PaymentRequest) -> GATTUUID? {
        request.hints.lazy.compactMap { sessionService(in: $0) }.first
    }

    // MARK: The advertised local name

    /// Hex digits of the payee's key id that open the local name (the shortest text the
    /// key-id rule accepts).
    public static let localNameKeyIDLength = 8
    /// The whole local name's UTF-8 bytes at most, as the advertiser asks for it: one
    /// scan-response record (31 bytes − 2 of length and type).
    public static let maximumLocalNameLength = 29
    /// What iOS promises to carry of a local name beside a 128-bit service UUID in the
    /// foreground: 10 bytes of scan response, "used only for the local name"
    /// (`CBPeripheralManager.startAdvertising`), of which 2 are the record's length and type.
    /// The key id comes first and fills exactly this, so a name cut short still names the payee.
    public static let guaranteedLocalNameLength = 8

    /// "<8 lower-case hex digits of the key id> <display name>", the display name cut at a
    /// character boundary so the whole fits `maximumLocalNameLength` bytes (control characters
    /// become spaces; an empty name is left out with its space). Nil when `keyIDHex` has fewer
    /// than 8 hex digits. The profile's version is the discovery service's UUID, not a word in
    /// the name: the name's first bytes are the ones iOS is sure to send.
    public static func localName(keyIDHex: String, displayName: String) -> String? {
        let key = keyIDHex.lowercased()
        // ASCII only: `isHexDigit` also accepts fullwidth digits, which no key id contains.
        guard key.utf8.count >= localNameKeyIDLength, key.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
        let head = String(key.prefix(localNameKeyIDLength))
        var name = ""
        var budget = maximumLocalNameLength - head.utf8.count - 1
        for character in displayName {
            let c: Character = character.unicodeScalars.contains { $0.properties.generalCategory == .control } ? " " : character
            let size = c.utf8.count
            guard size <= budget else { break }
            name.append(c)
            budget -= size
        }
        name = String(name.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        return name.isEmpty ? head : "\(head) \(name)"
    }

    /// Reads an advertised local name, maybe cut short by the system: nil unless it starts with
    /// 8 ASCII hex digits followed by nothing or by a space (then whatever survived of the
    /// display name, trimmed), and is at most `maximumLocalNameLength` bytes.
    public static func advertisedName(_ localName: String) -> AdvertisedName? {
        let bytes = Array(localName.utf8)
        guard bytes.count >= localNameKeyIDLength, bytes.count <= maximumLocalNameLength else { return nil }
        let key = bytes.prefix(localNameKeyIDLength)
        guard key.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) }) else { return nil }
        guard bytes.count == localNameKeyIDLength || bytes[localNameKeyIDLength] == 0x20 else { return nil }
        let keyID = String(decoding: key, as: UTF8.self).lowercased()
        let rest = localName.dropFirst(localNameKeyIDLength)
        let name = String(rest.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        return AdvertisedName(keyID: keyID, displayName: name)
    }

    /// What a payee's advertised local name says: the first 8 hex digits of its key id and its
    /// display name. Not trusted: the payer checks the key id against the request (or against
    /// the request the device gives, §12.7) before paying.
    public struct AdvertisedName: Hashable, Sendable {
        /// 8 lower-case hex digits, a prefix of the payee's key id.
        public let keyID: String
        /// The payee's display name as advertised (maybe cut short); may be empty.
        public let displayName: String

        public init(keyID: String, displayName: String) {
            self.keyID = keyID
            self.displayName = displayName
        }
    }
}
