import Foundation
import OfflineNotes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The wallet's signing key, and its raw form when the platform allows export (for backups).
public struct WalletIdentity: Sendable {
    public let signer: any MessageSigner
    /// 32-byte scalar, or nil for keys that cannot leave their hardware (Secure Enclave).
    public let exportableKey: [UInt8]?

    public init(signer: any MessageSigner, exportableKey: [UInt8]?) {
        self.signer = signer
        self.exportableKey = exportableKey
    }

    public var publicKey: PublicKeyBytes { signer.publicKey }
}

/// Where a wallet keeps its signing key.
public protocol KeyStore: Sendable {
    /// Creates a new key; fails if one exists.
    func create() throws(WalletError) -> WalletIdentity
    /// Creates the key from given raw bytes (restore from backup); fails if one exists.
    func importKey(_ raw: [UInt8]) throws(WalletError) -> WalletIdentity
    func load() throws(WalletError) -> WalletIdentity
}

/// A key file for Linux and the command line: created with mode 0600 (refused if others can
/// read it), encrypted with scrypt + AES-GCM when a passphrase is given.
///
/// Layout without passphrase: `OWK0` ‖ 32-byte scalar. With one: a `PassphraseBox` with magic `OWK1`.
public struct FileKeyStore: KeyStore {
    static let plainMagic = Array("OWK0".utf8)
    static let sealedMagic = Array("OWK1".utf8)

    public let path: String
    public let passphrase: String?
    public let cost: PassphraseBox.Cost

    public init(path: String, passphrase: String? = nil, cost: PassphraseBox.Cost = .interactive) {
        self.path = path
        self.passphrase = passphrase
        self.cost = cost
    }

    public func create() throws(WalletError) -> WalletIdentity {
        try importKey(SoftwareSigner().privateKey.rawRepresentation.map { $0 })
    }

    public func importKey(_ raw: [UInt8]) throws(WalletError) -> WalletIdentity {
        let signer: SoftwareSigner
        do { signer = try SoftwareSigner(rawRepresentation: raw) } catch { throw .corruptFile("invalid private key") }
        let contents: [UInt8]
        if let passphrase {
            do {
                contents = try PassphraseBox.seal(
                    raw, magic: Self.sealedMagic, passphrase: passphrase, cost: cost,
                    randomBytes: WalletEnvironment.live.randomBytes)
            } catch { throw .storage("could not encrypt the key: \(error)") }
        } else {
            contents = Self.plainMagic + raw
        }
        try Self.writeNew(path: path, contents: contents)
        return WalletIdentity(signer: signer, exportableKey: raw)
    }

    public func load() throws(WalletError) -> WalletIdentity {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .walletMissing(path) }
        let mode = UInt16(info.st_mode & 0o777)
        guard mode & 0o077 == 0 else { throw .insecureKeyFile(path: path, mode: mode) }
        guard let data = FileManager.default.contents(atPath: path) else { throw .walletMissing(path) }
        let bytes = Array(data)
        let raw: [UInt8]
        if bytes.starts(with: Self.plainMagic) {
            raw = Array(bytes.dropFirst(4))
        } else if bytes.starts(with: Self.sealedMagic) {
            guard let passphrase else { throw .passphraseRequired }
            raw = try PassphraseBox.open(bytes, magic: Self.sealedMagic, passphrase: passphrase)
        } else {
            throw .corruptFile("\(path) is not a wallet key file")
        }
        do {
            return WalletIdentity(signer: try SoftwareSigner(rawRepresentation: raw), exportableKey: raw)
        } catch {
            throw .corruptFile("\(path) holds an invalid key")
        }
    }

    /// Creates the file with O_EXCL and mode 0600 from the start (no window where it is
    /// world-readable), writes and fsyncs it.
    static func writeNew(path: String, contents: [UInt8]) throws(WalletError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else {
            if errno == EEXIST { throw .walletExists(path) }
            throw .storage("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let written = contents.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == contents.count, fsync(fd) == 0 else {
            unlink(path)
            throw .storage("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
