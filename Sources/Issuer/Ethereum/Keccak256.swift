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
        var offset = 0
        while offset < message.count {
            for lane in 0..<(rate / 8) {
                var word: UInt64 = 0
                for k in 0..<8 { word |= UInt64(message[offset + lane * 8 + k]) << (8 * k) }
                state[lane] ^= word
            }
            permute(&state)
            offset += rate
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
    private static let rotations: [UInt64] = [1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 2, 14, 27, 41, 56, 8, 25, 43, 62, 18, 39, 61, 20, 44]
    /// π lane order starting from lane 1.
    private static let piLanes: [Int] = [10, 7, 11, 17, 18, 3, 5, 16, 8, 21, 24, 4, 15, 23, 19, 13, 12, 2, 20, 14, 22, 9, 6, 1]

    @inline(__always) private static func rotl(_ x: UInt64, _ n: UInt64) -> UInt64 { (x << n) | (x >> (64 - n)) }

    /// Keccak-f[1600]: 24 rounds of θ, ρ, π, χ, ι over 25 little-endian 64-bit lanes.
    private static func permute(_ a: inout [UInt64]) {
        var c = [UInt64](repeating: 0, count: 5)
        for round in 0..<24 {
            for x in 0..<5 { c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20] }
            for x in 0..<5 {
                let d = c[(x + 4) % 5] ^ rotl(c[(x + 1) % 5], 1)
                for y in stride(from: 0, to: 25, by: 5) { a[y + x] ^= d }
            }
            var carried = a[1]
            for i in 0..<24 {
                let j = piLanes[i]
                let next = a[j]
                a[j] = rotl(carried, rotations[i])
                carried = next
            }
            for y in stride(from: 0, to: 25, by: 5) {
                for x in 0..<5 { c[x] = a[y + x] }
                for x in 0..<5 { a[y + x] = c[x] ^ (~c[(x + 1) % 5] & c[(x + 2) % 5]) }
            }
            a[0] ^= roundConstants[round]
        }
    }
}
