import Ethereum
import Foundation
import Testing

@Suite struct AddressTests {
    /// EIP-55's own test addresses (eips.ethereum.org/EIPS/eip-55, "Test Cases").
    static let eip55 = [
        "0x52908400098527886E0F7030069857D2E4169EE7", "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
        "0xde709f2102306220921060314715629080e2fb77", "0x27b1fdb04752bbc536007a920d24acb045561c26",
        "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
        "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB", "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
    ]

    @Test(arguments: eip55)
    func checksumMatchesEIP55(_ text: String) throws {
        let address = try Address(hex: text)
        #expect(address.checksummed == text)
        #expect(address.description == text)
        // The same address typed all-lower and all-upper parses to the same bytes.
        #expect(try Address(hex: "0x" + text.dropFirst(2).lowercased()) == address)
        #expect(try Address(hex: "0x" + text.dropFirst(2).uppercased()) == address)
    }

    @Test func refusesAWrongChecksum() {
        // One letter's case flipped in a correctly checksummed address.
        let mistyped = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"
        #expect(ethereumError { _ = try Address(hex: mistyped) } == .badChecksum(mistyped))
        #expect(EthereumError.badChecksum(mistyped).description.contains("checksum"))
    }

    @Test func refusesMalformedText() {
        for text in [
            "", "0x", "5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae",
            "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaedd", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg",
            " 0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed",
        ] {
            guard case .invalidAddress = ethereumError({ _ = try Address(hex: text) }) else {
                Issue.record("\(text) was not refused as invalid")
                continue
            }
        }
    }

    @Test func zeroAddressIsRefusedUnlessAllowed() throws {
        let zero = "0x0000000000000000000000000000000000000000"
        #expect(ethereumError { _ = try Address(hex: zero) } == .zeroAddress)
        #expect(try Address(hex: zero, allowZero: true) == Address.zero)
        #expect(Address.zero.isZero)
    }

    @Test func bytesWordAndCodable() throws {
        let address = try Address(hex: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359")
        #expect(address.bytes == bytes("fb6916095ca1df60bb79ce92ce3ea74c37c5d359"))
        #expect(try Address(bytes: address.bytes) == address)
        #expect(address.word == [UInt8](repeating: 0, count: 12) + address.bytes)
        #expect(ethereumError { _ = try Address(bytes: [1, 2, 3]) } != nil)
        let json = try JSONEncoder().encode([address])
        #expect(String(decoding: json, as: UTF8.self) == "[\"0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359\"]")
        #expect(try JSONDecoder().decode([Address].self, from: json) == [address])
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode([Address].self, from: Data("[\"0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d35A\"]".utf8))
        }
    }
}

@Suite struct HexTests {
    @Test func dataRoundTrip() throws {
        #expect(Hex.encode([0x00, 0xab, 0xff]) == "0x00abff")
        #expect(Hex.encode([]) == "0x")
        #expect(try Hex.decode("0x00ABff") == [0x00, 0xab, 0xff])
        #expect(try Hex.decode("0x") == [])
        #expect(try Hex.decode("00ab", requirePrefix: false) == [0x00, 0xab])
        #expect(ethereumError { _ = try Hex.decode("00ab") } != nil)
        #expect(ethereumError { _ = try Hex.decode("0x0ab") } != nil)
        #expect(ethereumError { _ = try Hex.decode("0x0g") } != nil)
    }

    @Test func quantities() throws {
        #expect(Hex.quantity(0 as UInt64) == "0x0")
        #expect(Hex.quantity(1024 as UInt64) == "0x400")
        #expect(Hex.quantity(UInt128.max) == "0xffffffffffffffffffffffffffffffff")
        #expect(try Hex.parseQuantity("0x400", as: UInt64.self) == 1024)
        #expect(try Hex.parseQuantity("0x0", as: UInt64.self) == 0)
        #expect(try Hex.parseQuantity("0X1A", as: UInt64.self) == 26)
        #expect(try Hex.parseQuantity("0x0400", as: UInt64.self) == 1024)  // leading zero: tolerated
        #expect(try Hex.parseQuantity("0xffffffffffffffffffffffffffffffff", as: UInt128.self) == UInt128.max)
        for garbage in ["", "0x", "400", "0x-1", "0x 1", "0x1g", "1x10", "0x10000000000000000"] {
            #expect(ethereumError { _ = try Hex.parseQuantity(garbage, as: UInt64.self) } != nil, "\(garbage)")
        }
        #expect(ethereumError { _ = try Hex.parseQuantity("0x1" + String(repeating: "0", count: 32), as: UInt128.self) } != nil)
    }
}
