import WalletCore

/// The passphrase box that wraps wallet backups ("OWB1") and key files ("OWK1")
/// (docs/protocol.md §8): header, cost check, then scrypt and AES-256-GCM. `open` may only return
/// or throw `WalletError`.
///
/// scrypt is expensive on purpose (the default cost is 32 MiB and ~0.1 s without sanitizers), so a
/// target that derived a key for every input would run a few inputs a second. The reader must
/// refuse a hostile cost before deriving; inputs whose header asks for a cost the reader
/// refuses go through `open` (and must be refused at once — a hang is a finding); inputs whose
/// header asks for an acceptable cost go through `open` only at the cheapest acceptable cost
/// (N = 2^10, r = 1, p = 1: 128 KiB), and are skipped otherwise. What is fuzzed is the format and
/// header parsing, the refusal of hostile costs, and the authenticated decryption at one cheap
/// cost; the plaintext behind a backup's tag (a version byte, a key and an SQLite snapshot) is
/// reachable only with the passphrase and is SQLite's to parse.
enum PassphraseBoxTarget {
    static let name = "passphrase-box"

    static let target = FuzzTargets.Target(
        name: name, covers: "WalletCore: PassphraseBox.open (backup and key files)", run: run, seeds: seeds)

    static let magics = [Array("OWB1".utf8), Array("OWK1".utf8)]
    static let passphrase = "fuzz passphrase"
    static let cheapest = PassphraseBox.Cost(log2N: 10, r: 1, p: 1)

    static func run(_ bytes: [UInt8]) {
        if bytes.count >= 9 {
            let cost = PassphraseBox.Cost(log2N: bytes[6], r: bytes[7], p: bytes[8])
            // The reader's own bound (2^10 ≤ N ≤ 2^20, r ≤ 16, p ≤ 4, 128·r·N·p ≤ 128 MiB): accepted
            // and not the cheapest means a real derivation; skip (see above). Everything else must
            // be refused before deriving, so a derivation slipping through shows as a timeout.
            let work = 128 * Int(cost.r) * (1 << Int(min(cost.log2N, 30))) * Int(cost.p)
            let acceptable =
                (10...20).contains(cost.log2N) && (1...16).contains(cost.r) && (1...4).contains(cost.p) && work <= 128 << 20
            if acceptable && cost != cheapest { return }
        }
        for magic in magics {
            do {
                let plain = try PassphraseBox.open(bytes, magic: magic, passphrase: passphrase)
                // Authenticated: the header and ciphertext are exactly what was sealed, so the
                // plaintext has the ciphertext's length.
                guard plain.count == bytes.count - 53 else { fail(name, "opened \(bytes.count) bytes into \(plain.count)") }
            } catch .corruptFile, .wrongPassphrase {
                // The two refusals a hostile or damaged file may get.
            } catch {
                fail(name, "open threw \(error), which is neither corruptFile nor wrongPassphrase")
            }
        }
    }

    /// Boxes sealed at the cheapest cost under the target's passphrase (a backup's plaintext
    /// shape and a key's), and headers with hostile costs.
    static func seeds() throws -> [[UInt8]] {
        var counter: UInt8 = 0
        let random: (Int) -> [UInt8] = { count in
            counter &+= 1
            return [UInt8](repeating: counter, count: count)
        }
        var out: [[UInt8]] = []
        for (magic, plain) in [
            (magics[0], [1, 0] + Array("SQLite format 3\0".utf8)), (magics[0], [1, 1] + [UInt8](repeating: 7, count: 32)),
            (magics[1], [UInt8](repeating: 9, count: 32)),
        ] {
            let sealed = try PassphraseBox.seal(plain, magic: magic, passphrase: passphrase, cost: cheapest, randomBytes: random)
            out.append(sealed)
            var hostile = sealed
            hostile[6] = 40
            hostile[7] = 255
            hostile[8] = 255
            out.append(hostile)
        }
        return out
    }
}
