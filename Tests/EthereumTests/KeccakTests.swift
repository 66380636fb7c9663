import Ethereum
import Testing

@Suite struct KeccakTests {
    /// Published Keccak-256 digests (original Keccak padding, as Ethereum uses):
    /// "" is Ethereum's well-known empty hash (KECCAK_EMPTY in the yellow paper / go-ethereum);
    /// "abc" and the million a's are the Keccak team's short-message and long-message test
    /// values for Keccak-256 (also in pycryptodome's Keccak tests); the fox sentence is the
    /// example on Wikipedia's SHA-3 page ("Keccak-256"). All re-checked here with eth_hash.
    @Test(arguments: [
        ("", "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"),
        ("abc", "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"),
        ("The quick brown fox jumps over the lazy dog", "4d741b6f1eb29cb2a9b9911c82f56fa8d73b04959d3d9d222895df6c0b28aa15"),
    ])
    func publishedDigests(_ input: String, _ expected: String) {
        #expect(hex(Keccak256.hash(input)) == expected)
    }

    /// 1,000,000 × "a": 7,353 blocks, so absorbing across many permutations is covered.
    @Test func millionAs() {
        let input = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(hex(Keccak256.hash(input)) == "fadae6b49f129bbb812be8407b7b2894f34aecf6dbd1f9b0f0c7e9853098fc96")
    }

    /// Lengths around the 136-byte rate: 135 (both padding bits in one byte, 0x81), 136 (a whole
    /// block of padding), 200 (two blocks). Expected values from eth_hash (pycryptodome backend).
    @Test(arguments: [
        (135, "34367dc248bbd832f4e3e69dfaac2f92638bd0bbd18f2912ba4ef454919cf446"),
        (136, "a6c4d403279fe3e0af03729caada8374b5ca54d8065329a3ebcaeb4b60aa386e"),
        (200, "96ea54061def936c4be90b518992fdc6f12f535068a256229aca54267b4d084d"),
    ])
    func rateBoundaries(_ length: Int, _ expected: String) {
        #expect(hex(Keccak256.hash([UInt8](repeating: UInt8(ascii: "a"), count: length))) == expected)
    }

    /// FIPS-202 SHA3-256("") is a7ffc6f8…; Keccak-256 must not be it (padding 0x01, not 0x06).
    @Test func isNotSHA3() {
        #expect(hex(Keccak256.hash("")) != "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a")
    }

    /// ERC-20's transfer selector and Transfer event topic, as every block explorer shows them.
    @Test func selectorsAndTopics() {
        #expect(hex(ABI.selector("transfer(address,uint256)")) == "a9059cbb")
        #expect(hex(ABI.selector("approve(address,uint256)")) == "095ea7b3")
        #expect(hex(ABI.selector("balanceOf(address)")) == "70a08231")
        #expect(
            hex(ABI.eventTopic("Transfer(address,address,uint256)"))
                == "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")
    }
}
