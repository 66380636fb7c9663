import Crypto
import OfflineNotes

/// Keys and transcript of one nearby session (docs/protocol.md §12.2).
///
/// The payee's request carries its ephemeral key-agreement key; the payer answers with its own
/// in the hello. Both sides derive one AES-256-GCM key per direction with HKDF-SHA256 over the
/// ECDH secret, salted with the transcript hash, so the keys are bound to this exact request and
/// hello (the ISO 18013-5 construction).
public struct SessionKeys: Sendable {
    /// SHA-256 over the request and the hello; the receipt signs it.
    public let transcriptHash: Digest32
    let payerToPayee: SendableKey<SymmetricKey>
    let payeeToPayer: SendableKey<SymmetricKey>

    /// The 8 bytes that name the session when a link is resumed.
    public var sessionID: [UInt8] { Array(transcriptHash.bytes.prefix(8)) }

    static let transcriptLabel = Array("offline-wallet/v1/session".utf8) + [0]
    static let payerInfo = Array("offline-wallet/v1/session/payer".utf8)
    static let payeeInfo = Array("offline-wallet/v1/session/payee".utf8)

    public static func transcriptHash(request: [UInt8], hello: [UInt8]) -> Digest32 {
        var hash = SHA256()
        hash.update(data: transcriptLabel)
        hash.update(data: request)
        hash.update(data: hello)
        return Digest32(uncheckedBytes: Array(hash.finalize()))
    }

    /// Derives both direction keys from our private key and the peer's public key.
    init(
        own: P256.KeyAgreement.PrivateKey, peer: P256.KeyAgreement.PublicKey, request: [UInt8], hello: [UInt8]
    ) throws(NearbyError) {
        let secret: SharedSecret
        do { secret = try own.sharedSecretFromKeyAgreement(with: peer) } catch { throw .handshake("key agreement failed") }
        transcriptHash = Self.transcriptHash(request: request, hello: hello)
        let salt = transcriptHash.bytes
        payerToPayee = SendableKey(
            secret.hkdfDerivedSymmetricKey(using: SHA256.self, salt: salt, sharedInfo: Self.payerInfo, outputByteCount: 32))
        payeeToPayer = SendableKey(
            secret.hkdfDerivedSymmetricKey(using: SHA256.self, salt: salt, sharedInfo: Self.payeeInfo, outputByteCount: 32))
    }

    /// The raw key bytes, for test vectors.
    public var rawKeys: (payerToPayee: [UInt8], payeeToPayer: [UInt8]) {
        (payerToPayee.value.withUnsafeBytes { Array($0) }, payeeToPayer.value.withUnsafeBytes { Array($0) })
    }
}

/// Which way a record travels; part of every AES-GCM nonce so the two directions never share one.
public enum Direction: UInt8, Sendable {
    case payerToPayee = 0
    case payeeToPayer = 1
}

/// Seals and opens the records of one direction with a counter nonce:
/// 8-byte big-endian direction identifier ‖ 4-byte big-endian counter starting at 1.
struct RecordCipher: Sendable {
    let key: SendableKey<SymmetricKey>
    let direction: Direction
    private(set) var counter: UInt32 = 0

    init(keys: SessionKeys, direction: Direction) {
        self.key = direction == .payerToPayee ? keys.payerToPayee : keys.payeeToPayer
        self.direction = direction
    }

    static func nonce(_ direction: Direction, _ counter: UInt32) -> [UInt8] {
        [0, 0, 0, 0, 0, 0, 0, direction.rawValue]
            + [
                UInt8(counter >> 24), UInt8(truncatingIfNeeded: counter >> 16), UInt8(truncatingIfNeeded: counter >> 8),
                UInt8(truncatingIfNeeded: counter),
            ]
    }

    mutating func seal(_ plaintext: [UInt8]) throws(NearbyError) -> [UInt8] {
        guard counter < UInt32.max else { throw .protocolViolation("record counter exhausted") }
        counter += 1
        do {
            let box = try AES.GCM.seal(plaintext, using: key.value, nonce: AES.GCM.Nonce(data: Self.nonce(direction, counter)))
            return Array(box.ciphertext) + Array(box.tag)
        } catch {
            throw .protocolViolation("sealing failed")
        }
    }

    mutating func open(_ record: [UInt8]) throws(NearbyError) -> [UInt8] {
        guard record.count >= 16 else { throw .decryptionFailed }
        guard counter < UInt32.max else { throw .protocolViolation("record counter exhausted") }
        counter += 1
        do {
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: Self.nonce(direction, counter)), ciphertext: record.dropLast(16),
                tag: record.suffix(16))
            return Array(try AES.GCM.open(box, using: key.value))
        } catch {
            throw .decryptionFailed
        }
    }
}

/// The payer's first record: session version and its ephemeral key.
enum Hello {
    static let version: UInt8 = 1
    static let size = 1 + 33

    static func encode(_ key: P256.KeyAgreement.PublicKey) -> [UInt8] {
        [version] + Array(key.compressedRepresentation)
    }

    static func decode(_ bytes: [UInt8]) throws(NearbyError) -> P256.KeyAgreement.PublicKey {
        guard bytes.count == size else { throw .handshake("hello must be \(size) bytes, found \(bytes.count)") }
        guard bytes[0] == version else { throw .unsupportedVersion(bytes[0]) }
        do { return try P256.KeyAgreement.PublicKey(compressedRepresentation: bytes[1...]) } catch {
            throw .handshake("payer key is not a compressed P-256 point")
        }
    }
}
