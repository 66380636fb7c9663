/// Keccak-256 as Ethereum uses it: the original Keccak submission's padding (0x01 … 0x80), not
/// the FIPS-202 SHA3-256 padding (0x06 … 0x80), so the digests differ from SHA3-256's.
public enum Keccak256 {
    /// Bytes absorbed per permutation: 1600 bits of state minus 2 × 256 bits of capacity.
    static let rate = 136

    /// The 32-byte Keccak-256 digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var state = [UInt64](repeating: 0, count: 25)
        // Pad first (message ‖ 0x01 ‖ 0* ‖ 0x80 to a multiple of the rate), then absorb block by
        // block; the padding bytes may coincide (0x81) when one byte is missing.
        var message = bytes
        message.append(0x01)
        while message.count % rate != 0 { message.append(0) }
        message[message.count - 1] |= 0x80
        message.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                for lane in 0..<(rate / 8) {
                    state[lane] ^= UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + lane * 8, as: UInt64.self))
                }
                permute(&state)
                offset += rate
            }
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for lane in 0..<4 {
            for k in 0..<8 { digest.append(UInt8(truncatingIfNeeded: state[lane] >> (8 * k))) }
        }
        return digest
    }

    /// The digest of a string's UTF-8 bytes (function and event signatures).
    public static func hash(_ text: String) -> [UInt8] {
        hash(Array(text.utf8))
    }

    private static let roundConstants: [UInt64] = [
        0x0000_0000_0000_0001, 0x0000_0000_0000_8082, 0x8000_0000_0000_808A, 0x8000_0000_8000_8000,
        0x0000_0000_0000_808B, 0x0000_0000_8000_0001, 0x8000_0000_8000_8081, 0x8000_0000_0000_8009,
        0x0000_0000_0000_008A, 0x0000_0000_0000_0088, 0x0000_0000_8000_8009, 0x0000_0000_8000_000A,
        0x0000_0000_8000_808B, 0x8000_0000_0000_008B, 0x8000_0000_0000_8089, 0x8000_0000_0000_8003,
        0x8000_0000_0000_8002, 0x8000_0000_0000_0080, 0x0000_0000_0000_800A, 0x8000_0000_8000_000A,
        0x8000_0000_8000_8081, 0x8000_0000_0000_8080, 0x0000_0000_8000_0001, 0x8000_0000_8000_8008,
    ]
    /// ρ rotation offsets, in the order π visits the lanes.
    private static let rotations: [UInt64] = [
        1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 2, 14, 27, 41, 56, 8, 25, 43, 62, 18, 39, 61, 20, 44,
    ]
    /// π lane order starting from lane 1.
    private static let piLanes: [Int] = [10, 7, 11, 17, 18, 3, 5, 16, 8, 21, 24, 4, 15, 23, 19, 13, 12, 2, 20, 14, 22, 9, 6, 1]

    @inline(__always) private static func rotl(_ x: UInt64, _ n: UInt64) -> UInt64 { (x << n) | (x >> (64 - n)) }

    /// Keccak-f[1600]: 24 rounds of θ, ρ, π, χ, ι over 25 little-endian 64-bit lanes.
    /// Works through unsafe buffers: the bounds-checked array version is about ten times slower
    /// in debug builds, where the tests run.
    private static func permute(_ state: inout [UInt64]) {
        state.withUnsafeMutableBufferPointer { a in
            roundConstants.withUnsafeBufferPointer { rc in
                rotations.withUnsafeBufferPointer { rot in
                    piLanes.withUnsafeBufferPointer { pi in
                        var c0: UInt64, c1: UInt64, c2: UInt64, c3: UInt64, c4: UInt64
                        for round in 0..<24 {
                            c0 = a[0] ^ a[5] ^ a[10] ^ a[15] ^ a[20]
                            c1 = a[1] ^ a[6] ^ a[11] ^ a[16] ^ a[21]
                            c2 = a[2] ^ a[7] ^ a[12] ^ a[17] ^ a[22]
                            c3 = a[3] ^ a[8] ^ a[13] ^ a[18] ^ a[23]
                            c4 = a[4] ^ a[9] ^ a[14] ^ a[19] ^ a[24]
                            let d0 = c4 ^ rotl(c1, 1), d1 = c0 ^ rotl(c2, 1), d2 = c1 ^ rotl(c3, 1)
                            let d3 = c2 ^ rotl(c4, 1), d4 = c3 ^ rotl(c0, 1)
                            var y = 0
                            while y < 25 {
                                a[y] ^= d0
                                a[y + 1] ^= d1
                                a[y + 2] ^= d2
                                a[y + 3] ^= d3
                                a[y + 4] ^= d4
                                y += 5
                            }
                            var carried = a[1]
                            for i in 0..<24 {
                                let j = pi[i]
                                let next = a[j]
                                a[j] = rotl(carried, rot[i])
                                carried = next
                            }
                            y = 0
                            while y < 25 {
                                c0 = a[y]
                                c1 = a[y + 1]
                                c2 = a[y + 2]
                                c3 = a[y + 3]
                                c4 = a[y + 4]
                                a[y] = c0 ^ (~c1 & c2)
                                a[y + 1] = c1 ^ (~c2 & c3)
                                a[y + 2] = c2 ^ (~c3 & c4)
                                a[y + 3] = c3 ^ (~c4 & c0)
                                a[y + 4] = c4 ^ (~c0 & c1)
                                y += 5
                            }
                            a[0] ^= rc[round]
                        }
                    }
                }
            }
        }
    }
}
