import Ethereum
import Testing

/// Vectors from ethereum/tests, RLPTests/rlptest.json and RLPTests/invalidRLPTest.json
/// (github.com/ethereum/tests, commits 0d2c026f and 16806bfc), copied by name.
@Suite struct RLPTests {
    static let lorem55 = "Lorem ipsum dolor sit amet, consectetur adipisicing eli"
    static let asdf: RLP = .list([.string("asdf"), .string("qwer"), .string("zxcv")])

    static let valid: [(String, RLP, String)] = [
        ("emptystring", .string(""), "0x80"),
        ("bytestring00", .bytes([0]), "0x00"),
        ("bytestring01", .bytes([1]), "0x01"),
        ("bytestring7F", .bytes([0x7f]), "0x7f"),
        ("shortstring", .string("dog"), "0x83646f67"),
        (
            "shortstring2", .string(lorem55),
            "0xb74c6f72656d20697073756d20646f6c6f722073697420616d65742c20636f6e7365637465747572206164697069736963696e6720656c69"
        ),
        (
            "longstring", .string(lorem55 + "t"),
            "0xb8384c6f72656d20697073756d20646f6c6f722073697420616d65742c20636f6e7365637465747572206164697069736963696e6720656c6974"
        ),
        ("zero", .uint(0 as UInt64), "0x80"),
        ("smallint", .uint(1 as UInt64), "0x01"),
        ("smallint2", .uint(16 as UInt64), "0x10"),
        ("smallint3", .uint(79 as UInt64), "0x4f"),
        ("smallint4", .uint(127 as UInt64), "0x7f"),
        ("mediumint1", .uint(128 as UInt64), "0x8180"),
        ("mediumint2", .uint(1000 as UInt64), "0x8203e8"),
        ("mediumint3", .uint(100000 as UInt64), "0x830186a0"),
        ("mediumint4", .uint(83729609699884896815286331701780722 as UInt128), "0x8f102030405060708090a0b0c0d0e0f2"),
        (
            "mediumint5", .bytes(bytes("0x0100020003000400050006000700080009000a000b000c000d000e01")),
            "0x9c0100020003000400050006000700080009000a000b000c000d000e01"
        ),
        ("emptylist", .list([]), "0xc0"),
        ("stringlist", .list([.string("dog"), .string("god"), .string("cat")]), "0xcc83646f6783676f6483636174"),
        ("multilist", .list([.string("zw"), .list([.uint(4 as UInt64)]), .uint(1 as UInt64)]), "0xc6827a77c10401"),
        (
            "shortListMax1",
            .list(["asdf", "qwer", "zxcv", "asdf", "qwer", "zxcv", "asdf", "qwer", "zxcv", "asdf", "qwer"].map(RLP.string)),
            "0xf784617364668471776572847a78637684617364668471776572847a78637684617364668471776572847a78637684617364668471776572"
        ),
        (
            "longList1", .list([asdf, asdf, asdf, asdf]),
            "0xf840cf84617364668471776572847a786376cf84617364668471776572847a786376cf84617364668471776572847a786376cf84617364668471776572847a786376"
        ),
        // 32 copies: the list payload is 512 bytes, so its length takes two bytes (0xf9 0x0200).
        (
            "longList2", .list([RLP](repeating: asdf, count: 32)),
            "0xf90200" + String(repeating: "cf84617364668471776572847a786376", count: 32)
        ),
        ("listsoflists", .list([.list([.list([]), .list([])]), .list([])]), "0xc4c2c0c0c0"),
        ("listsoflists2", .list([.list([]), .list([.list([])]), .list([.list([]), .list([.list([])])])]), "0xc7c0c1c0c3c0c1c0"),
        (
            "dictTest1", .list((1...4).map { .list([.string("key\($0)"), .string("val\($0)")]) }),
            "0xecca846b6579318476616c31ca846b6579328476616c32ca846b6579338476616c33ca846b6579348476616c34"
        ),
        // 2^256: 33 bytes, so only as raw bytes here.
        (
            "bigint", .bytes([1] + [UInt8](repeating: 0, count: 32)),
            "0xa1010000000000000000000000000000000000000000000000000000000000000000"
        ),
        ("cat dog (yellow paper example)", .list([.string("cat"), .string("dog")]), "0xc88363617483646f67"),
        ("1024 (RLP wiki)", .uint(1024 as UInt64), "0x820400"),
    ]

    @Test func encodesPublishedVectors() {
        for (name, item, expected) in Self.valid {
            #expect(Hex.encode(item.encoded) == expected, "\(name)")
        }
    }

    @Test func decodesPublishedVectorsBack() throws {
        for (name, item, encoded) in Self.valid {
            #expect(try RLP.decode(bytes(encoded)) == item, "\(name)")
        }
    }

    /// A 1024-byte string: two length bytes (0xb9 0x0400), as rlptest.json's longstring2.
    @Test func longStringWithTwoLengthBytes() throws {
        let payload = [UInt8](repeating: 0x61, count: 1024)
        let encoded = RLP.bytes(payload).encoded
        #expect(Array(encoded.prefix(3)) == [0xb9, 0x04, 0x00])
        #expect(encoded.count == 1027)
        #expect(try RLP.decode(encoded) == .bytes(payload))
    }

    static let invalid: [(String, String, RLPFault)] = [
        ("int32Overflow", "0xbf0f000000000000021111", .truncated),
        ("int32Overflow2", "0xff0f000000000000021111", .truncated),
        ("wrongSizeList", "0xf80180", .nonCanonical("long-form length 1 is under 56")),
        ("wrongSizeList2", "0xf80100", .nonCanonical("long-form length 1 is under 56")),
        (
            "incorrectLengthInArray", "0xb9002100dc2b275d0f74e8a53e6f4ec61b27f24278820be3f82ea2110e582081b0565df0",
            .nonCanonical("length with a leading zero byte")
        ),
        (
            "randomRLP",
            "0xf861f83eb9002100dc2b275d0f74e8a53e6f4ec61b27f24278820be3f82ea2110e582081b0565df027b90015002d5ef8325ae4d034df55d4b58d0dfba64d61ddd17be00000b9001a00dae30907045a2f66fa36f2bb8aa9029cbb0b8a7b3b5c435ab331",
            .nonCanonical("length with a leading zero byte")
        ),
        ("bytesShouldBeSingleByte00", "0x8100", .nonCanonical("single byte 0x0 must be encoded as itself")),
        ("bytesShouldBeSingleByte01", "0x8101", .nonCanonical("single byte 0x1 must be encoded as itself")),
        ("bytesShouldBeSingleByte7F", "0x817F", .nonCanonical("single byte 0x7f must be encoded as itself")),
        (
            "leadingZerosInLongLengthArray1",
            "b90040000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f",
            .nonCanonical("length with a leading zero byte")
        ),
        ("leadingZerosInLongLengthArray2", "b800", .nonCanonical("length with a leading zero byte")),
        (
            "leadingZerosInLongLengthList1",
            "fb00000040000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f",
            .nonCanonical("length with a leading zero byte")
        ),
        ("leadingZerosInLongLengthList2", "f800", .nonCanonical("length with a leading zero byte")),
        ("nonOptimalLongLengthArray1", "b81000112233445566778899aabbccddeeff", .nonCanonical("long-form length 16 is under 56")),
        ("nonOptimalLongLengthArray2", "b801ff", .nonCanonical("long-form length 1 is under 56")),
        ("nonOptimalLongLengthList1", "f810000102030405060708090a0b0c0d0e0f", .nonCanonical("long-form length 16 is under 56")),
        ("nonOptimalLongLengthList2", "f803112233", .nonCanonical("long-form length 3 is under 56")),
    ]

    @Test func refusesPublishedInvalidVectors() {
        for (name, input, fault) in Self.invalid {
            #expect(ethereumError { _ = try RLP.decode(bytes(input)) } == .invalidRLP(fault), "\(name)")
        }
    }

    @Test func refusesTruncatedAndTrailingInput() {
        #expect(ethereumError { _ = try RLP.decode([]) } == .invalidRLP(.truncated))
        #expect(ethereumError { _ = try RLP.decode(bytes("83646f")) } == .invalidRLP(.truncated))
        // A list whose payload claims more than is there, and an item running past its list.
        #expect(ethereumError { _ = try RLP.decode(bytes("c88363617483646f")) } == .invalidRLP(.truncated))
        #expect(ethereumError { _ = try RLP.decode(bytes("c283646f67")) } == .invalidRLP(.truncated))
        #expect(ethereumError { _ = try RLP.decode(bytes("b838")) } == .invalidRLP(.truncated))
        #expect(ethereumError { _ = try RLP.decode(bytes("83646f6700")) } == .invalidRLP(.trailingBytes))
        // Every proper prefix of a valid encoding is refused.
        let full = RLP.list([.string("cat"), .list([.string("dog"), .uint(1024 as UInt64)])]).encoded
        for cut in 0..<full.count {
            #expect(ethereumError { _ = try RLP.decode(Array(full.prefix(cut))) } != nil, "prefix \(cut)")
        }
    }

    @Test func refusesNestingDeeperThanTheLimit() throws {
        func nested(_ lists: Int) -> RLP {
            (1..<lists).reduce(RLP.list([])) { inner, _ in .list([inner]) }
        }
        #expect(try RLP.decode(nested(RLP.maximumDepth).encoded) == nested(RLP.maximumDepth))
        #expect(ethereumError { _ = try RLP.decode(nested(RLP.maximumDepth + 1).encoded) } == .invalidRLP(.tooDeep))
    }

    @Test func readsCanonicalIntegersOnly() throws {
        #expect(try RLP.bytes([0x04, 0x00]).uintValue(as: UInt64.self) == 1024)
        #expect(try RLP.bytes([]).uintValue(as: UInt64.self) == 0)
        #expect(try RLP.uint(UInt128.max).uintValue(as: UInt128.self) == UInt128.max)
        #expect(ethereumError { _ = try RLP.bytes([0x00, 0x01]).uintValue(as: UInt64.self) } != nil)
        #expect(ethereumError { _ = try RLP.bytes([UInt8](repeating: 1, count: 9)).uintValue(as: UInt64.self) } != nil)
        #expect(ethereumError { _ = try RLP.list([]).uintValue(as: UInt64.self) } != nil)
        #expect(ethereumError { _ = try RLP.bytes([]).listValue() } != nil)
    }
}
