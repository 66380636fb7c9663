import Testing

@testable import EscrowTool

/// `wallet-escrow` reads amounts as exact decimals with the token's digits and prints any uint256.
@Suite struct TokenAmountTests {
    @Test(arguments: [
        ("12.34", 2, UInt128(1234)), ("12", 2, 1200), ("12.3", 2, 1230), ("0.05", 2, 5), ("0", 2, 0),
        ("7", 0, 7), ("0.000001", 6, 1),
        // 2^128 − 1: the largest amount the tool sends, to the unit.
        ("3402823669209384634633746074317682114.55", 2, UInt128.max),
    ])
    func parsesExactly(_ text: String, _ decimals: Int, _ units: UInt128) throws {
        #expect(try TokenAmount.parse(text, decimals: decimals) == units)
    }

    /// More fraction digits than the token has would be rounded by someone: refused instead.
    /// So is anything but plain digits with one point.
    @Test(arguments: ["12.345", "7.0:0", ".5", "12.", "-1", "+1", "1e3", " 1", "1 ", "1,00", "1.2.3", "", "١٢", "0x10"])
    func refusesWhatIsNotAPlainAmount(_ input: String) {
        let (text, decimals) = input == "7.0:0" ? ("7.0", 0) : (input, 2)
        #expect(throws: EscrowToolError.self) { try TokenAmount.parse(text, decimals: decimals) }
    }

    @Test func refusesMoreThanItCanHold() {
        let error = #expect(throws: EscrowToolError.self) {
            try TokenAmount.parse("3402823669209384634633746074317682114.56", decimals: 2)
        }
        #expect(error?.code == "invalid_amount")
        #expect(error?.description.contains("larger") == true)
    }

    @Test func formatsWithTheTokensDecimals() {
        #expect(TokenAmount.format(1234, decimals: 2) == "12.34")
        #expect(TokenAmount.format(5, decimals: 2) == "0.05")
        #expect(TokenAmount.format(0, decimals: 2) == "0.00")
        #expect(TokenAmount.format(100, decimals: 0) == "100")
        #expect(TokenAmount.format(12_345, decimals: 6) == "0.012345")
    }

    /// Balances and caps are uint256 words; the largest prints exactly (2^256 − 1 with 2 decimals).
    @Test func formatsAnyUInt256Word() {
        #expect(
            TokenAmount.format(word: [UInt8](repeating: 0xff, count: 32), decimals: 2)
                == "1157920892373161954235709850086879078532699846656405640394575840079131296399.35")
        var word = [UInt8](repeating: 0, count: 32)
        word[30] = 0x30
        word[31] = 0x39
        #expect(TokenAmount.format(word: word, decimals: 2) == "123.45")
        #expect(TokenAmount.units(word: word) == 12_345)
        #expect(TokenAmount.format(word: [UInt8](repeating: 0, count: 32), decimals: 2) == "0.00")
        word[0] = 1
        #expect(TokenAmount.units(word: word) == nil)
    }
}
