import Crypto

/// A compressed SEC1 P-256 public key (33 bytes, first byte 0x02 or 0x03).
public struct PublicKeyBytes: FixedWidthBytes {
    public static let byteCount = 33
    public let bytes: [UInt8]
    public init(uncheckedBytes: [UInt8]) { bytes = uncheckedBytes }

    public init(_ key: P256.Signing.PublicKey) {
        bytes = Array(key.compressedRepresentation)
    }

    /// The key's identifier: the first 8 bytes of SHA-256 over the compressed key.
    public var keyID: KeyID {
        KeyID(uncheckedBytes: Array(SHA256.hash(data: bytes).prefix(KeyID.byteCount)))
    }

    /// Decompresses and validates the point. Costs about one field exponentiation.
    public func signingKey() throws(VerificationError) -> P256.Signing.PublicKey {
        do {
            return try P256.Signing.PublicKey(compressedRepresentation: bytes)
        } catch {
            throw .malformed("public key is not a valid compressed P-256 point")
        }
    }

    /// Reads 33 bytes and checks the SEC1 prefix; the point itself is validated on use.
    static func read(_ reader: inout ByteReader) throws(VerificationError) -> PublicKeyBytes {
        let key = try reader.fixed(PublicKeyBytes.self)
        guard key.bytes[0] == 0x02 || key.bytes[0] == 0x03 else {
            throw .malformed("public key must be compressed (prefix 0x02 or 0x03)")
        }
        return key
    }
}

/// Domain separation: each signed message type has its own context string, prepended
/// (with a 0x00 separator) to the exact body bytes before ECDSA-P256-SHA256.
public enum SignatureContext: String, Sendable, CaseIterable {
    case issuedNote = "offline-wallet/v1/issued-note"
    case transfer = "offline-wallet/v1/transfer"
    case receipt = "offline-wallet/v1/receipt"
    case keyset = "offline-wallet/v1/keyset"
    case limits = "offline-wallet/v1/limits"

    /// The exact bytes that are signed: context, 0x00, body.
    public func message(_ body: [UInt8]) -> [UInt8] {
        var m = Array(rawValue.utf8)
        m.reserveCapacity(m.count + 1 + body.count)
        m.append(0)
        m.append(contentsOf: body)
        return m
    }
}

/// Something that can sign protocol messages with a P-256 key: a software key here,
/// a Secure Enclave key on iPhone. Signatures are raw r‖s, 64 bytes.
public protocol MessageSigner: Sendable {
    var publicKey: PublicKeyBytes { get }
    func sign(_ message: [UInt8]) throws -> [UInt8]
}

extension MessageSigner {
    func sign(_ context: SignatureContext, body: [UInt8]) throws -> [UInt8] {
        let signature = try sign(context.message(body))
        guard signature.count == 64 else { throw SigningError.badSignatureLength(signature.count) }
        return signature
    }
}

/// Raised when a signer misbehaves or a message cannot be built.
public enum SigningError: Error, Equatable, Sendable {
    /// A `MessageSigner` returned something other than a raw 64-byte signature.
    case badSignatureLength(Int)
    /// The message would violate a protocol rule (the text says which).
    case invalidMessage(String)
}

/// A P-256 private key held in memory (Linux, tests, the issuer).
public struct SoftwareSigner: MessageSigner {
    private let key: SendableKey<P256.Signing.PrivateKey>
    public let publicKey: PublicKeyBytes

    /// The private key.
    public var privateKey: P256.Signing.PrivateKey { key.value }

    public init(_ privateKey: P256.Signing.PrivateKey = .init()) {
        self.key = SendableKey(privateKey)
        self.publicKey = PublicKeyBytes(privateKey.publicKey)
    }

    /// Restores a key from its 32-byte scalar.
    public init(rawRepresentation: [UInt8]) throws {
        self.init(try P256.Signing.PrivateKey(rawRepresentation: rawRepresentation))
    }

    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        Array(try key.value.signature(for: message).rawRepresentation)
    }
}

/// Verifies ECDSA-P256-SHA256 over `context ‖ 0x00 ‖ body`.
enum SignatureCheck {
    static func isValid(
        _ signature: [UInt8], context: SignatureContext, body: [UInt8], key: P256.Signing.PublicKey
    ) -> Bool {
        guard let sig = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else {
            return false
        }
        return key.isValidSignature(sig, for: context.message(body))
    }
}

/// SHA-256 helpers with the protocol's domain strings.
public enum ProtocolHash {
    public static func sha256(_ bytes: [UInt8]) -> Digest32 {
        Digest32(uncheckedBytes: Array(SHA256.hash(data: bytes)))
    }

    static let stateContext = Array("offline-wallet/v1/state".utf8) + [0]
    static let paymentContext = Array("offline-wallet/v1/payment".utf8) + [0]

    /// StateRef of an issued note: SHA-256(ctx ‖ 0x01 ‖ SHA-256(note body)).
    static func rootRef(noteHash: Digest32) -> StateRef {
        sha256(stateContext + [0x01] + noteHash.bytes)
    }

    /// StateRef of output `index` of a transfer: SHA-256(ctx ‖ 0x02 ‖ SHA-256(transfer body) ‖ index).
    static func outputRef(transferHash: Digest32, index: UInt8) -> StateRef {
        sha256(stateContext + [0x02] + transferHash.bytes + [index])
    }
}

/// Registering a wallet key to an account online: the wallet proves it holds the private key
/// by signing `"offline-wallet/v1/register-key" ‖ 0x00 ‖ challenge ‖ account id (8 bytes, big-endian)`.
public enum KeyRegistration {
    static let context = Array("offline-wallet/v1/register-key".utf8) + [0]

    /// The exact bytes the wallet signs and the issuer verifies.
    public static func message(challenge: [UInt8], account: Int64) -> [UInt8] {
        context + challenge + withUnsafeBytes(of: account.bigEndian, Array.init)
    }
}
