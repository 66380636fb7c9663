import Ethereum
import Foundation
import Testing

@Suite struct PrivateKeyTests {
    static let docsKey = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"

    /// Key 1's address is the well-known 0x7E5F…5Bdf (the generator point's address); the
    /// eth-account documentation's example key maps to 0x2c75…5c23.
    @Test func knownKeysToAddresses() throws {
        let one = try PrivateKey(bytes: [UInt8](repeating: 0, count: 31) + [1])
        #expect(one.address.checksummed == "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf")
        #expect(
            hex(one.publicKey)
                == "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"
        )
        let docs = try PrivateKey(hex: "0x" + Self.docsKey)
        #expect(docs.address.checksummed == "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23")
        #expect(try PrivateKey(hex: Self.docsKey + "\n").address == docs.address)
    }

    @Test func refusesZeroAndValuesNotBelowTheOrder() throws {
        let n = bytes("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
        var nMinus1 = n
        nMinus1[31] -= 1
        #expect(ethereumError { _ = try PrivateKey(bytes: [UInt8](repeating: 0, count: 32)) } != nil)
        #expect(ethereumError { _ = try PrivateKey(bytes: n) } != nil)
        #expect(ethereumError { _ = try PrivateKey(bytes: [UInt8](repeating: 0xff, count: 32)) } != nil)
        #expect(ethereumError { _ = try PrivateKey(bytes: [1]) } != nil)
        _ = try PrivateKey(bytes: nMinus1)
        for text in ["", "0x", "0x" + Self.docsKey + "00", String(Self.docsKey.dropLast()) + "z"] {
            #expect(ethereumError { _ = try PrivateKey(hex: text) } != nil, "\(text)")
        }
    }

    /// The secret never shows in any textual form, nor in an error about a bad key text.
    @Test func descriptionsRedactTheSecret() throws {
        let key = try PrivateKey(hex: Self.docsKey)
        for text in [
            key.description, key.debugDescription, String(describing: key), String(reflecting: key), "\(key)", dumped(key),
        ] {
            #expect(!text.lowercased().contains(Self.docsKey))
            #expect(!text.lowercased().contains(String(Self.docsKey.prefix(16))))
            #expect(text.contains("0x2c7536E3605D9C16a7a3D7b1898e529396a65c23") || text.contains("redacted"))
        }
        let bad = String(Self.docsKey.dropLast(2)) + "zz"
        let error = try #require(ethereumError { _ = try PrivateKey(hex: bad) })
        #expect(!error.description.contains(String(bad.prefix(16))))
    }

    private func dumped(_ key: PrivateKey) -> String {
        var out = ""
        dump(key, to: &out)
        return out
    }

    @Test func keyFileRules() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func write(_ name: String, _ text: String, mode: Int) throws -> String {
            let path = directory + "/" + name
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            return path
        }
        let expected = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
        #expect(try PrivateKey(hexFile: write("plain.key", Self.docsKey + "\n", mode: 0o600)).address.checksummed == expected)
        #expect(
            try PrivateKey(hexFile: write("prefixed.key", "0x" + Self.docsKey + "\n", mode: 0o400)).address.checksummed
                == expected)
        #expect(try PrivateKey(hexFile: write("bare.key", Self.docsKey, mode: 0o600)).address.checksummed == expected)

        for mode in [0o644, 0o640, 0o604, 0o660, 0o606] {
            let path = try write("open-\(String(mode, radix: 8)).key", Self.docsKey + "\n", mode: mode)
            let error = try #require(ethereumError { _ = try PrivateKey(hexFile: path) })
            #expect(error == .insecureKeyFile(path: path, mode: UInt16(mode)))
            #expect(error.description.contains("chmod 600 \(path)"))
        }
        // A symbolic link (mounted secrets often are) is judged by the file it points to.
        let target = try write("target.key", Self.docsKey + "\n", mode: 0o600)
        try FileManager.default.createSymbolicLink(atPath: directory + "/link.key", withDestinationPath: target)
        #expect(try PrivateKey(hexFile: directory + "/link.key").address.checksummed == expected)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target)
        #expect(
            ethereumError { _ = try PrivateKey(hexFile: directory + "/link.key") }
                == .insecureKeyFile(path: directory + "/link.key", mode: 0o644))
        let garbage = try write("garbage.key", "not a key\n", mode: 0o600)
        guard case .keyFile(let path, _) = ethereumError({ _ = try PrivateKey(hexFile: garbage) }) else {
            Issue.record("garbage key file accepted")
            return
        }
        #expect(path == garbage)
        let twoKeys = try write("two.key", Self.docsKey + "\n" + Self.docsKey + "\n", mode: 0o600)
        #expect(ethereumError { _ = try PrivateKey(hexFile: twoKeys) } != nil)
        let missing = directory + "/missing.key"
        guard case .keyFile(missing, let reason) = ethereumError({ _ = try PrivateKey(hexFile: missing) }) else {
            Issue.record("missing key file not reported")
            return
        }
        #expect(reason.contains("No such file"))
        #expect(ethereumError { _ = try PrivateKey(hexFile: directory) } != nil)
    }

    @Test func generatedKeysWriteA0600FileThatReadsBack() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let key = PrivateKey.generate()
        #expect(PrivateKey.generate().address != key.address)
        let path = directory + "/new.key"
        try key.writeHexFile(path)
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.count == 65 && text.hasSuffix("\n"))
        #expect(try PrivateKey(hexFile: path).address == key.address)
        // Never overwrites: the existing file may be the only copy of a key.
        #expect(ethereumError { try PrivateKey.generate().writeHexFile(path) } != nil)
        #expect(try PrivateKey(hexFile: path).address == key.address)
    }

    @Test func signaturesRecoverTheSigner() throws {
        let key = try PrivateKey(hex: Self.docsKey)
        let hash = Keccak256.hash("a message")
        let signature = try key.sign(hash: hash)
        #expect(signature.r.count == 32 && signature.s.count == 32 && signature.v <= 1)
        #expect(try PrivateKey.recoverAddress(hash: hash, r: signature.r, s: signature.s, v: signature.v) == key.address)
        // Another hash or the other recovery id gives another address (or none).
        let other = try? PrivateKey.recoverAddress(
            hash: Keccak256.hash("another"), r: signature.r, s: signature.s, v: signature.v)
        #expect(other != key.address)
        let flipped = try? PrivateKey.recoverAddress(hash: hash, r: signature.r, s: signature.s, v: 1 - signature.v)
        #expect(flipped != key.address)
        #expect(ethereumError { _ = try key.sign(hash: [1, 2, 3]) } != nil)
    }

    /// libsecp256k1 signs with low S; the malleated twin (n − s, other parity) is refused.
    @Test func highSIsRefused() throws {
        let key = try PrivateKey(hex: Self.docsKey)
        let hash = Keccak256.hash("malleable")
        let signature = try key.sign(hash: hash)
        let n = bytes("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
        var highS = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for i in (0..<32).reversed() {
            let difference = Int(n[i]) - Int(signature.s[i]) - borrow
            highS[i] = UInt8((difference + 256) % 256)
            borrow = difference < 0 ? 1 : 0
        }
        #expect(signature.s.lexicographicallyPrecedes(highS))
        #expect(
            ethereumError { _ = try PrivateKey.recoverAddress(hash: hash, r: signature.r, s: highS, v: 1 - signature.v) } != nil)
    }
}
