// Self-test (scripts/check-app, "platform"): lint-platform.py MUST flag exactly the lines that
// end in a "platform:" comment, and no other. Apple's CryptoKit keys are not Sendable, so a
// Sendable type that stores one fails in Xcode while it compiles on Linux; a CFString constant
// with `as String` in a case is a cast pattern. Never compiled: only linted.
import CryptoKit
import OfflineNotes
import Security
import Synchronization

struct PlantedSigner: Sendable {
    let key: P256.Signing.PrivateKey  // platform:
    private var session: SymmetricKey?  // platform:
    public let peers: [String: P256.KeyAgreement.PublicKey]  // platform:
    let wrapped: SendableKey<P256.Signing.PrivateKey>
    let table: [String: SendableKey<P256.Signing.PublicKey>]
    let cache = Mutex<[String: P256.Signing.PublicKey]>([:])  // platform:
    let sendableCache = Mutex<[String: SendableKey<P256.Signing.PublicKey>]>([:])
    var publicKey: P256.Signing.PublicKey { wrapped.value.publicKey }

    func sign(_ message: [UInt8]) throws -> [UInt8] {
        let local: P256.Signing.PrivateKey = wrapped.value
        return Array(try local.signature(for: message).rawRepresentation)
    }
}

func plantedHeader(type: String, bits: Int) -> Int {
    let rsa = kSecAttrKeyTypeRSA as String
    switch (type, bits) {
    case (kSecAttrKeyTypeECSECPrimeRandom as String, 256): return 26  // platform:
    case (rsa, 2048): return 24
    case let (name as String, size) where size > 0: return name.count
    default: break
    }
    if case kSecAttrKeyTypeRSA as String = type { return 1 }  // platform:
    if bits < 0 {
        return 2
    } else if case kSecAttrKeyTypeRSA as String = type {  // platform:
        return 3
    }
    if case let value as String = type as Any { return value.count }
    switch bits as Any {
    case let size as Int where size as Int > 0: return size
    default: return 0
    }
}

struct PlantedCache: Sendable {
    static let shared = SymmetricKey(size: .bits256)  // platform:
    let derive: @Sendable ([UInt8]) -> SymmetricKey

    func keys(of actors: [PlantedKeeper]) async -> [SymmetricKey] {
        var found: [SymmetricKey] = []
        for actor in actors {
            let key: SymmetricKey = await actor.key
            found.append(key)
        }
        return found
    }
}

/// An actor may hold what is not Sendable: not flagged.
actor PlantedKeeper {
    let key = SymmetricKey(size: .bits256)
}
