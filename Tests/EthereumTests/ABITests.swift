import Ethereum
import Testing

@Suite struct ABITests {
    static let key1Address = try! Address(hex: "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf")

    /// Expected bytes from eth_abi 5 (`encode(['string','string','uint8','uint256'], ['Euro Token','EUR',2,10**6])`):
    /// two dynamic strings' offsets in the head, then their lengths and padded bytes.
    @Test func constructorArgumentsWithStrings() throws {
        let expected =
            "000000000000000000000000000000000000000000000000000000000000008000000000000000000000000000000000000000000000000000000000000000c0000000000000000000000000000000000000000000000000000000000000000200000000000000000000000000000000000000000000000000000000000f4240000000000000000000000000000000000000000000000000000000000000000a4575726f20546f6b656e0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000034555520000000000000000000000000000000000000000000000000000000000"
        let args: [ABI.Value] = [.string("Euro Token"), .string("EUR"), .uint8(2), .uint256(1_000_000 as UInt64)]
        #expect(hex(ABI.encode(args)) == expected)
        #expect(ABI.constructorCallData(bytecode: [0x60, 0x80], arguments: args) == [0x60, 0x80] + bytes(expected))
        #expect(try ABI.decodeString(bytes(expected), at: 0) == "Euro Token")
        #expect(try ABI.decodeString(bytes(expected), at: 1) == "EUR")
    }

    /// eth_abi: `encode(['bytes','bool','bytes32','address'], [bytes(range(33)), True, b'\x11'*32, key 1's address])`
    /// — 33 bytes of `bytes` span two padded words.
    @Test func bytesBoolBytes32Address() throws {
        let expected =
            "0000000000000000000000000000000000000000000000000000000000000080000000000000000000000000000000000000000000000000000000000000000111111111111111111111111111111111111111111111111111111111111111110000000000000000000000007e5f4552091a69125d5dfcb7b8c2659029395bdf0000000000000000000000000000000000000000000000000000000000000021000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2000000000000000000000000000000000000000000000000000000000000000"
        let encoded = ABI.encode([
            .bytes(Array(0..<33)), .bool(true), .bytes32([UInt8](repeating: 0x11, count: 32)), .address(Self.key1Address),
        ])
        #expect(hex(encoded) == expected)
        #expect(try ABI.decodeBytes(encoded, at: 0) == Array(0..<33))
        #expect(try ABI.decodeBool(ABI.word(encoded, at: 1)) == true)
        #expect(try ABI.decodeAddress(ABI.word(encoded, at: 3)) == Self.key1Address)
    }

    /// transfer(key 1's address, 1 EUR in cents): the selector a9059cbb then two words.
    @Test func functionCallData() throws {
        let transfer = ABI.Function(signature: "transfer(address,uint256)")
        #expect(transfer.name == "transfer")
        #expect(transfer.parameterTypes == ["address", "uint256"])
        let data = try transfer.callData([.address(Self.key1Address), .uint256(100 as UInt64)])
        #expect(
            hex(data) == "a9059cbb" + "0000000000000000000000007e5f4552091a69125d5dfcb7b8c2659029395bdf"
                + "0000000000000000000000000000000000000000000000000000000000000064")
        #expect(try ABI.Function(signature: "paused()").callData([]) == ABI.selector("paused()"))
    }

    /// The bug the original product shipped: a call with the wrong arity. Refused before signing.
    @Test func callDataRefusesWrongArityAndTypes() {
        let deposit = ABI.Function(signature: "deposit(uint256,bytes32)")
        #expect(
            ethereumError { _ = try deposit.callData([.uint256(5 as UInt64)]) }
                == .abi("deposit(uint256,bytes32) takes 2 arguments, 1 given"))
        #expect(
            ethereumError { _ = try deposit.callData([.bytes32([UInt8](repeating: 1, count: 32)), .uint256(5 as UInt64)]) } != nil
        )
        #expect(ethereumError { _ = try deposit.callData([.uint256(5 as UInt64), .bytes32([1, 2, 3])]) } != nil)
        let decimals = ABI.Function(signature: "f(uint8)")
        #expect(ethereumError { _ = try decimals.callData([.uint256(256 as UInt64)]) } != nil)
        #expect((try? decimals.callData([.uint256(255 as UInt64)])) != nil)
        #expect(ethereumError { _ = try ABI.Function(signature: "broken").callData([]) } != nil)
    }

    @Test func uintWords() throws {
        #expect(ABI.word(UInt64.max) == [UInt8](repeating: 0, count: 24) + [UInt8](repeating: 0xff, count: 8))
        #expect(try ABI.decodeUInt64(ABI.word(UInt64.max)) == UInt64.max)
        #expect(try ABI.decodeUInt128(ABI.word(UInt128.max)) == UInt128.max)
        // 2^64 does not fit in UInt64: an error, never a truncated 0.
        let twoTo64 = ABI.word(UInt128(1) << 64)
        #expect(ethereumError { _ = try ABI.decodeUInt64(twoTo64) } != nil)
        #expect(try ABI.decodeUInt128(twoTo64) == UInt128(1) << 64)
        #expect(ethereumError { _ = try ABI.decodeUInt128([1] + [UInt8](repeating: 0, count: 31)) } != nil)
        #expect(ethereumError { _ = try ABI.decodeUInt64([1, 2]) } != nil)
        #expect(ABI.encode([.uint256(word: [UInt8](repeating: 0xff, count: 32))]) == [UInt8](repeating: 0xff, count: 32))
    }

    @Test func decodingRefusesMalformedWords() throws {
        #expect(ethereumError { _ = try ABI.decodeBool(ABI.word(2 as UInt64)) } != nil)
        #expect(try ABI.decodeBool(ABI.word(0 as UInt64)) == false)
        var dirty = Self.key1Address.word
        dirty[0] = 1
        #expect(ethereumError { _ = try ABI.decodeAddress(dirty) } != nil)
        #expect(ethereumError { _ = try ABI.words([UInt8](repeating: 0, count: 33)) } != nil)
        #expect(try ABI.words([UInt8](repeating: 0, count: 64)).count == 2)
        #expect(ethereumError { _ = try ABI.word([UInt8](repeating: 0, count: 32), at: 1) } != nil)
        // A dynamic offset or length pointing past the data.
        #expect(ethereumError { _ = try ABI.decodeString(ABI.word(64 as UInt64)) } != nil)
        #expect(ethereumError { _ = try ABI.decodeString(ABI.word(32 as UInt64) + ABI.word(5 as UInt64) + [0x41]) } != nil)
    }
}
