import Crypto
import CryptoExtras
import Foundation

/// Passphrase encryption shared by key files and backups: scrypt, then AES-256-GCM with the
/// header as associated data, so no header byte can be changed undetected.
///
///     magic(4) version(1)=1 kdf(1)=1(scrypt) log2N(1) r(1) p(1) salt(16) nonce(12) ciphertext tag(16)
public enum PassphraseBox {
    /// scrypt cost. Default N = 2^15, r = 8, p = 1: 32 MiB and about 0.1 s here, the
    /// interactive-login setting recommended by the scrypt paper.
    public struct Cost: Sendable, Equatable {
        public var log2N: UInt8
        public var r: UInt8
        public var p: UInt8

        public init(log2N: UInt8, r: UInt8, p: UInt8) {
            self.log2N = log2N
            self.r = r
            self.p = p
        }

        public static let interactive = Cost(log2N: 15, r: 8, p: 1)
        /// For tests only: fast and weak.
        public static let testing = Cost(log2N: 10, r: 8, p: 1)

        /// Refuses files whose cost would exhaust memory or time when opened, before deriving:
        /// N from 2^10 to 2^20, r ≤ 16, p ≤ 4, and at most four times the interactive work
        /// (128·r·N·p ≤ 128 MiB). The per-parameter bounds alone let a hostile header ask for 2 GiB
        /// of scrypt memory and four passes over it, which kills a phone app before the tag is checked.
        var isAcceptable: Bool {
            (10...20).contains(log2N) && (1...16).contains(r) && (1...4).contains(p) && work <= 4 * Cost.interactive.work
        }
        /// scrypt's memory times its passes: 128·r·N bytes, p times.
        var work: Int { 128 * Int(r) * (1 << Int(log2N)) * Int(p) }
        var memory: Int { work + (1 << 20) }
    }

    static let headerSize = 4 + 1 + 1 + 3 + 16 + 12

    public static func seal(
        _ plaintext: [UInt8], magic: [UInt8], passphrase: String, cost: Cost = .interactive,
        randomBytes: (Int) -> [UInt8]
    ) throws -> [UInt8] {
        precondition(magic.count == 4, "magic is four bytes")
        let salt = randomBytes(16)
        let nonceBytes = randomBytes(12)
        let header = magic + [1, 1, cost.log2N, cost.r, cost.p] + salt + nonceBytes
        let key = try deriveKey(passphrase, salt: salt, cost: cost)
        let box = try AES.GCM.seal(
            plaintext, using: key, nonce: AES.GCM.Nonce(data: nonceBytes), authenticating: header)
        return header + Array(box.ciphertext) + Array(box.tag)
    }

    public static func open(_ sealed: [UInt8], magic: [UInt8], passphrase: String) throws(WalletError) -> [UInt8] {
        guard sealed.count >= headerSize + 16, Array(sealed.prefix(4)) == magic else {
            throw .corruptFile("not an encrypted file of this kind")
        }
        guard sealed[4] == 1, sealed[5] == 1 else { throw .corruptFile("unsupported encryption version") }
        let cost = Cost(log2N: sealed[6], r: sealed[7], p: sealed[8])
        guard cost.isAcceptable else { throw .corruptFile("unreasonable key-derivation cost") }
        let salt = Array(sealed[9..<25])
        let nonceBytes = Array(sealed[25..<37])
        let header = Array(sealed[0..<headerSize])
        let body = sealed[headerSize...]
        do {
            let key = try deriveKey(passphrase, salt: salt, cost: cost)
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: nonceBytes), ciphertext: body.dropLast(16), tag: body.suffix(16))
            return Array(try AES.GCM.open(box, using: key, authenticating: header))
        } catch {
            throw .wrongPassphrase
        }
    }

    static func deriveKey(_ passphrase: String, salt: [UInt8], cost: Cost) throws -> SymmetricKey {
        try KDF.Scrypt.deriveKey(
            from: Array(passphrase.utf8), salt: salt, outputByteCount: 32, rounds: 1 << Int(cost.log2N),
            blockSize: Int(cost.r), parallelism: Int(cost.p), maxMemory: cost.memory)
    }
}
