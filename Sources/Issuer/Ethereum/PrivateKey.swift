import CSecp256k1

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one libsecp256k1 context, created and randomized once. libsecp256k1 documents a context
/// as safe to use from many threads at once for every call taking it as `const`, which all calls
/// here do; only randomization (done before publication) mutates it.
final class Secp256k1Context: @unchecked Sendable {
    static let shared = Secp256k1Context()
    let pointer: OpaquePointer

    private init() {
        guard let context = secp256k1_context_create(ow_secp256k1_context_none()) else {
            fatalError("secp256k1_context_create failed: out of memory")
        }
        // Blinding against side channels; a failure here only loses the blinding, so go on.
        var seed = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for i in seed.indices { seed[i] = generator.next() }
        _ = secp256k1_context_randomize(context, seed)
        pointer = context
    }
}

/// A secp256k1 private key (32 bytes, 1 ≤ k < n) and its Ethereum address. Its textual forms
/// show the address only: the secret never appears in `description`, logs or errors.
public struct PrivateKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    private let secret: [UInt8]
    /// The 64-byte uncompressed public key (x ‖ y, without the 0x04 prefix).
    public let publicKey: [UInt8]
    /// keccak256(publicKey)[12...]
    public let address: Address

    /// A key from its 32 bytes; refuses 0 and anything ≥ the group order n.
    public init(bytes: [UInt8]) throws(EthereumError) {
        guard bytes.count == 32 else { throw .invalidPrivateKey("\(bytes.count) bytes, not 32") }
        let context = Secp256k1Context.shared.pointer
        guard secp256k1_ec_seckey_verify(context, bytes) == 1 else {
            throw .invalidPrivateKey("zero or not below the secp256k1 group order")
        }
        var pubkey = secp256k1_pubkey()
        guard secp256k1_ec_pubkey_create(context, &pubkey, bytes) == 1 else {
            throw .invalidPrivateKey("libsecp256k1 could not derive its public key")
        }
        let uncompressed = try Self.serialize(pubkey)
        secret = bytes
        publicKey = uncompressed
        address = Self.address(ofPublicKey: uncompressed)
    }

    /// A key from 64 hex digits, with or without "0x"; surrounding whitespace (a file's
    /// trailing newline) is ignored. The error never repeats the text.
    public init(hex text: String) throws(EthereumError) {
        let trimmed = text.trimmingWhitespace()
        let digits = trimmed.hasPrefix("0x") || trimmed.hasPrefix("0X") ? trimmed.dropFirst(2) : Substring(trimmed)
        guard digits.utf8.count == 64 else {
            throw .invalidPrivateKey("expected 64 hex digits (optionally after 0x), found \(digits.utf8.count) characters")
        }
        let bytes: [UInt8]
        do { bytes = try Hex.decode(String(digits), requirePrefix: false) } catch {
            throw .invalidPrivateKey("expected 64 hex digits, found a character that is not a hex digit")
        }
        try self.init(bytes: bytes)
    }

    /// Reads a key file: 64 hex digits (optionally after "0x") and an optional trailing newline.
    /// Refuses a file that group or others may read or write (mode & 0o077 ≠ 0), naming the
    /// `chmod 600` that fixes it — a key that others could read may already be leaked.
    public init(hexFile path: String) throws(EthereumError) {
        // One check for every secret file (SecretFile): mode, regular file, size, then read.
        let contents = try SecretFile.read(path, maxBytes: 1024)
        guard let text = String(validating: contents, as: UTF8.self) else {
            throw .keyFile(path: path, reason: "not text: expected 64 hex digits and a newline")
        }
        do { try self.init(hex: text) } catch {
            throw .keyFile(path: path, reason: error.description)
        }
    }

    /// A fresh random key from the system's secure generator.
    public static func generate() -> PrivateKey {
        var generator = SystemRandomNumberGenerator()
        while true {
            var bytes = [UInt8](repeating: 0, count: 32)
            for i in bytes.indices { bytes[i] = generator.next() }
            // Fails only for 0 or ≥ n, with probability about 2⁻¹²⁸.
            if let key = try? PrivateKey(bytes: bytes) { return key }
        }
    }

    /// Writes the key as 64 hex digits and a newline to a new file created with mode 0600;
    /// refuses to overwrite an existing file (it may hold the only copy of another key).
    public func writeHexFile(_ path: String) throws(EthereumError) {
        try SecretFile.create(path, bytes: Array((Hex.encode(secret, prefixed: false) + "\n").utf8))
    }

    /// Signs a 32-byte hash (RFC 6979 deterministic nonce; libsecp256k1 always produces low-S).
    /// `v` is the recovery id, 0 or 1 (EIP-1559's yParity).
    public func sign(hash: [UInt8]) throws(EthereumError) -> (r: [UInt8], s: [UInt8], v: UInt8) {
        guard hash.count == 32 else { throw .signature("a message hash is 32 bytes, not \(hash.count)") }
        let context = Secp256k1Context.shared.pointer
        var signature = secp256k1_ecdsa_recoverable_signature()
        guard secp256k1_ecdsa_sign_recoverable(context, &signature, hash, secret, nil, nil) == 1 else {
            throw .signature("signing failed")
        }
        var compact = [UInt8](repeating: 0, count: 64)
        var recoveryID: Int32 = 0
        guard secp256k1_ecdsa_recoverable_signature_serialize_compact(context, &compact, &recoveryID, &signature) == 1 else {
            throw .signature("could not serialize the signature")
        }
        return (Array(compact[0..<32]), Array(compact[32..<64]), UInt8(recoveryID))
    }

    /// The address whose key made signature (r, s, v) over `hash`. Refuses a high S (above n/2),
    /// which Ethereum has rejected since Homestead because it makes a second valid signature.
    public static func recoverAddress(hash: [UInt8], r: [UInt8], s: [UInt8], v: UInt8) throws(EthereumError) -> Address {
        guard hash.count == 32 else { throw .signature("a message hash is 32 bytes, not \(hash.count)") }
        guard r.count <= 32, s.count <= 32, v <= 1 else { throw .signature("r and s must be at most 32 bytes and v 0 or 1") }
        let r32 = [UInt8](repeating: 0, count: 32 - r.count) + r
        let s32 = [UInt8](repeating: 0, count: 32 - s.count) + s
        guard !halfOrder.lexicographicallyPrecedes(s32) else {
            throw .signature("s is above n/2 (a malleated signature)")
        }
        let context = Secp256k1Context.shared.pointer
        var signature = secp256k1_ecdsa_recoverable_signature()
        guard secp256k1_ecdsa_recoverable_signature_parse_compact(context, &signature, r32 + s32, Int32(v)) == 1 else {
            throw .signature("r or s is not below the group order")
        }
        var pubkey = secp256k1_pubkey()
        guard secp256k1_ecdsa_recover(context, &pubkey, &signature, hash) == 1 else {
            throw .signature("no public key recovers from this signature")
        }
        return address(ofPublicKey: try serialize(pubkey))
    }

    /// n/2 for secp256k1, rounded down: the largest S Ethereum accepts.
    static let halfOrder: [UInt8] = [
        0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0x5D, 0x57, 0x6E, 0x73, 0x57, 0xA4, 0x50, 0x1D, 0xDF, 0xE9, 0x2F, 0x46, 0x68, 0x1B, 0x20, 0xA0,
    ]

    private static func serialize(_ pubkey: secp256k1_pubkey) throws(EthereumError) -> [UInt8] {
        var key = pubkey
        var output = [UInt8](repeating: 0, count: 65)
        var length = 65
        guard
            secp256k1_ec_pubkey_serialize(Secp256k1Context.shared.pointer, &output, &length, &key, ow_secp256k1_ec_uncompressed())
                == 1, length == 65
        else {
            throw .signature("could not serialize a public key")
        }
        return Array(output[1...])
    }

    static func address(ofPublicKey key: [UInt8]) -> Address {
        Address(unchecked: Array(Keccak256.hash(key).suffix(20)))
    }

    /// Shows the address only; the secret is redacted.
    public var description: String { "PrivateKey(address: \(address.checksummed), secret redacted)" }
    public var debugDescription: String { description }
}

extension PrivateKey: CustomReflectable {
    /// Mirrors (`dump`, test failure output) show the address only.
    public var customMirror: Mirror { Mirror(self, children: ["address": address.checksummed], displayStyle: .struct) }
}

extension String {
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        return String(self.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
