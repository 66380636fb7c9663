import Ethereum
import Foundation
import IssuerCore
import OfflineNotes

/// The issuer's secrets on disk, created on first start, mode 0600, shared by every process
/// serving one database:
///
///     authority.key        32-byte P-256 scalar: signs keysets and limits (never rotates)
///     secret.key           32 random bytes: HMAC key for access tokens and key challenges
///     issuing-<from>.key   one 32-byte scalar per issuing key; <from> is its valid-from time
///
/// An issuing key is valid from its time until the next key's time plus the note lifetime
/// (so notes it signed stay verifiable), the newest for `keyLifetime` seconds.
struct KeyDirectory {
    let path: String
    static let keyLifetime: UInt64 = 365 * 86_400

    func load(now: Timestamp, noteLifetime: UInt64) throws -> (IssuerKeyring, secret: [UInt8]) {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let authority = try SoftwareSigner(
            rawRepresentation: try readOrCreate("authority.key") { Array(SoftwareSigner().privateKey.rawRepresentation) })
        let secret = try readOrCreate("secret.key") { (0..<32).map { _ in UInt8.random(in: 0...255) } }
        var starts = try issuingStarts()
        if starts.isEmpty {
            try rotate(now: now)
            starts = try issuingStarts()
        }
        var issuing: [IssuerKeyring.Issuing] = []
        for (i, start) in starts.enumerated() {
            let signer = try SoftwareSigner(rawRepresentation: try read("issuing-\(start).key"))
            let until = i + 1 < starts.count ? starts[i + 1] + noteLifetime : start + Self.keyLifetime
            issuing.append(.init(signer: signer, validFrom: start, validUntil: until))
        }
        return (IssuerKeyring(authority: authority, issuing: issuing, sequence: UInt64(starts.count)), secret)
    }

    /// Adds a new issuing key valid from `now`; new notes are signed with it from then on.
    @discardableResult
    func rotate(now: Timestamp) throws -> PublicKeyBytes {
        let signer = SoftwareSigner()
        try writeNew("issuing-\(now).key", Array(signer.privateKey.rawRepresentation))
        return signer.publicKey
    }

    func issuingStarts() throws -> [UInt64] {
        try FileManager.default.contentsOfDirectory(atPath: path).compactMap { name -> UInt64? in
            guard name.hasPrefix("issuing-"), name.hasSuffix(".key") else { return nil }
            return UInt64(name.dropFirst(8).dropLast(4))
        }.sorted()
    }

    /// Reads a 32-byte key through the one secret-file check (`SecretFile`): a file that group
    /// or others may read is refused with the `chmod 600` that fixes it.
    func read(_ name: String) throws -> [UInt8] {
        let file = (path as NSString).appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: file) else { throw ServerError("missing \(file)") }
        let bytes: [UInt8]
        do { bytes = try SecretFile.read(file, maxBytes: 32) } catch { throw ServerError("\(error)") }
        guard bytes.count == 32 else { throw ServerError("\(file) is not a 32-byte key") }
        return bytes
    }

    func readOrCreate(_ name: String, make: () -> [UInt8]) throws -> [UInt8] {
        let file = (path as NSString).appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: file) { try writeNew(name, make()) }
        return try read(name)
    }

    /// O_EXCL and mode exactly 0600 from creation, whatever the umask (`SecretFile.create`):
    /// the key is never readable by others, even briefly.
    func writeNew(_ name: String, _ bytes: [UInt8]) throws {
        let file = (path as NSString).appendingPathComponent(name)
        do { try SecretFile.create(file, bytes: bytes) } catch { throw ServerError("\(error)") }
    }
}

struct ServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
