import Foundation
import OfflineNotes
import WalletCore

/// A stand-in for the phone's Secure Enclave in tests: keys held in memory, one per wallet
/// directory, that never leave it (`exportableKey` is nil, `importKey` makes a new key, as the
/// hardware does). It records every call, so a test sees which directory's key was created or
/// loaded. Test support only, never shipped.
public final class SimulatedEnclave: @unchecked Sendable {
    // @unchecked: `keys` and `log` are read and written only under `lock`.

    /// One call a store made, with its wallet directory.
    public enum Call: Equatable, Sendable {
        case create(String)
        case importKey(String)
        case load(String)
    }

    private let lock = NSLock()
    private var keys: [String: SoftwareSigner] = [:]
    private var log: [Call] = []

    public init() {}

    /// The store for the wallet in `directory`.
    public func store(for directory: String) -> SimulatedEnclaveKeyStore {
        SimulatedEnclaveKeyStore(enclave: self, directory: directory)
    }

    /// Every call so far, oldest first.
    public var calls: [Call] { lock.withLock { log } }

    /// The public key held for `directory`, nil when none.
    public func publicKey(for directory: String) -> PublicKeyBytes? {
        lock.withLock { keys[directory]?.publicKey }
    }

    fileprivate func create(_ directory: String, as call: Call) throws(WalletError) -> WalletIdentity {
        let signer = SoftwareSigner()
        let added = lock.withLock { () -> Bool in
            log.append(call)
            guard keys[directory] == nil else { return false }
            keys[directory] = signer
            return true
        }
        guard added else { throw .walletExists(directory) }
        return WalletIdentity(signer: signer, exportableKey: nil)
    }

    fileprivate func load(_ directory: String) throws(WalletError) -> WalletIdentity {
        let signer = lock.withLock { () -> SoftwareSigner? in
            log.append(.load(directory))
            return keys[directory]
        }
        guard let signer else { throw .walletMissing(directory) }
        return WalletIdentity(signer: signer, exportableKey: nil)
    }
}

/// One wallet directory's key in a `SimulatedEnclave`: non-exportable, like
/// `SecureEnclaveKeyStore`.
public struct SimulatedEnclaveKeyStore: KeyStore {
    public let enclave: SimulatedEnclave
    public let directory: String

    public func create() throws(WalletError) -> WalletIdentity {
        try enclave.create(directory, as: .create(directory))
    }

    /// Hardware keys cannot be imported: a new key, as `SecureEnclaveKeyStore` does.
    public func importKey(_ raw: [UInt8]) throws(WalletError) -> WalletIdentity {
        try enclave.create(directory, as: .importKey(directory))
    }

    public func load() throws(WalletError) -> WalletIdentity { try enclave.load(directory) }
}
