import Crypto
import CryptoExtras

/// scrypt password hashes: `0x01 ‖ log2N ‖ r ‖ p ‖ salt(16) ‖ hash(32)`.
/// Standard cost N = 2^15, r = 8, p = 1 (32 MiB, about 0.1 s on this machine): the scrypt
/// paper's interactive setting; slow enough to make offline guessing expensive.
public struct PasswordHasher: Sendable {
    public struct Cost: Sendable, Equatable {
        public let log2N: UInt8
        public let r: UInt8
        public let p: UInt8
        public static let standard = Cost(log2N: 15, r: 8, p: 1)
        /// Tests only.
        public static let testing = Cost(log2N: 10, r: 8, p: 1)
    }

    public let cost: Cost

    public init(cost: Cost) { self.cost = cost }

    public func hash(_ password: String, salt: [UInt8]) throws -> [UInt8] {
        [1, cost.log2N, cost.r, cost.p] + salt + (try derive(password, salt: salt, cost: cost))
    }

    /// Constant-time comparison against a stored hash (with the stored hash's own cost).
    public func verify(_ password: String, against stored: [UInt8]) -> Bool {
        guard stored.count == 4 + 16 + 32, stored[0] == 1, (10...20).contains(stored[1]) else { return false }
        let cost = Cost(log2N: stored[1], r: stored[2], p: stored[3])
        guard let derived = try? derive(password, salt: Array(stored[4..<20]), cost: cost) else { return false }
        var diff: UInt8 = 0
        for (a, b) in zip(derived, stored[20...]) { diff |= a ^ b }
        return diff == 0
    }

    private func derive(_ password: String, salt: [UInt8], cost: Cost) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8), salt: salt, outputByteCount: 32, rounds: 1 << Int(cost.log2N),
            blockSize: Int(cost.r), parallelism: Int(cost.p), maxMemory: 128 * Int(cost.r) * (1 << Int(cost.log2N)) * 2)
        return key.withUnsafeBytes { Array($0) }
    }
}
