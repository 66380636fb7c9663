import Ethereum
import TestSupport
import Testing

/// Properties over many generated inputs (seeded, so a failure replays exactly).
@Suite struct RLPPropertyTests {
    private func item(_ random: inout SplitMix64, depth: Int = 0) -> RLP {
        if depth < 4 && random.chance(0.3) {
            return .list((0..<Int(random.next() % 5)).map { _ in item(&random, depth: depth + 1) })
        }
        // Lengths around the 55/56 boundary and single bytes on both sides of 0x80.
        let length = [0, 1, 1, 2, 55, 56, 57, 300][Int(random.next() % 8)]
        return .bytes((0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }

    @Test func encodingRoundTrips() throws {
        var random = SplitMix64(seed: 11)
        for _ in 0..<500 {
            let value = item(&random)
            #expect(try RLP.decode(value.encoded) == value)
        }
    }

    /// Canonical means unique: whatever bytes decode must be exactly the encoding of what they
    /// decode to. Flipping bytes of valid encodings explores the near misses.
    @Test func whateverDecodesReEncodesToTheSameBytes() throws {
        var random = SplitMix64(seed: 12)
        var decoded = 0
        for _ in 0..<3000 {
            var bytes = item(&random).encoded
            for _ in 0..<(1 + Int(random.next() % 2)) where !bytes.isEmpty {
                bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            if let value = try? RLP.decode(bytes) {
                decoded += 1
                #expect(value.encoded == bytes, "\(Hex.encode(bytes)) decoded but is not canonical")
            }
        }
        #expect(decoded > 100)  // the mutations leave plenty of valid inputs to check
    }

    /// Signed transactions for random fields decode back to the same fields and the signer.
    @Test func transactionsRoundTrip() throws {
        var random = SplitMix64(seed: 13)
        let key = PrivateKey.generate()
        for _ in 0..<40 {
            let priority = UInt128(random.next() >> (random.next() % 64))
            let transaction = EIP1559Transaction(
                chainID: random.next() >> (random.next() % 64), nonce: random.next() >> (random.next() % 64),
                maxPriorityFeePerGas: priority, maxFeePerGas: priority + UInt128(random.next()) << (random.next() % 64),
                gasLimit: random.next() % 30_000_000,
                to: random.chance(0.2) ? nil : try Address(bytes: (0..<20).map { _ in UInt8(truncatingIfNeeded: random.next()) }),
                value: UInt128(random.next()) * UInt128(random.next() % 1000),
                data: (0..<Int(random.next() % 100)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            let signed = try transaction.signed(with: key)
            let decoded = try SignedTransaction(raw: signed.raw)
            #expect(decoded == signed)
            #expect(try decoded.sender() == key.address)
        }
    }
}
