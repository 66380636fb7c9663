import Crypto
import Synchronization

/// Decompressed public keys, keyed by their 33 compressed bytes.
///
/// Decompressing a P-256 point is a large share of an ECDSA verification with swift-crypto's
/// BoringSSL backend, and the same owner keys recur constantly (a wallet's own key, regular
/// counterparties, the payers a server sees). Bounded: when full it is emptied, which keeps
/// memory fixed without bookkeeping on the hot path. Safe to share between threads.
public final class PublicKeyCache: Sendable {
    private let entries = Mutex<[PublicKeyBytes: SendableKey<P256.Signing.PublicKey>]>([:])
    public let capacity: Int

    public init(capacity: Int = 4_096) {
        self.capacity = max(1, capacity)
    }

    /// The decompressed key, or nil when the bytes are not a valid point.
    public func key(for bytes: PublicKeyBytes) -> P256.Signing.PublicKey? {
        if let hit = entries.withLock({ $0[bytes] }) { return hit.value }
        guard let key = try? bytes.signingKey() else { return nil }
        let shared = SendableKey(key)
        entries.withLock { cache in
            if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            cache[bytes] = shared
        }
        return key
    }

    public var count: Int { entries.withLock { $0.count } }
}
