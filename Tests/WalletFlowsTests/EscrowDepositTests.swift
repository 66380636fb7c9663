import Foundation
import OfflineNotes
import Testing
import WalletFlows
import WalletSync

/// The deposit requests ordinary Ethereum wallets open (EIP-681), built from checked parts only,
/// and the wallet's format-level address check.
@Suite("Escrow deposit requests")
struct EscrowDepositTests {
    static let escrow = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
    static let token = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"
    static let ref = "0x" + String(repeating: "0a1b2c3d", count: 8)
    static let eur = Currency("EUR")!

    static func instructions(
        decimals: Int = 2, currency: String = "EUR", escrow: String = escrow, token: String = token, ref: String = ref
    )
        -> DepositInstructions
    {
        DepositInstructions(
            chainID: 31337, escrow: escrow, token: token, accountRef: ref, decimals: decimals, confirmations: 12,
            currency: currency)
    }

    /// The exact text: target@chainID/function?type=value…, the function's arguments in order,
    /// amounts as plain decimal token units (= minor units, 12.34 EUR → 1234).
    @Test func exactRequestsWithAnAmount() throws {
        let plan = try EscrowDepositPlan(Self.instructions(), currency: Self.eur, amount: 1234)
        #expect(
            plan.approveURI
                == "ethereum:0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512@31337/approve?address=0x5FbDB2315678afecb367f032d93F642f64180aa3&uint256=1234"
        )
        #expect(
            plan.depositURI
                == "ethereum:0x5FbDB2315678afecb367f032d93F642f64180aa3@31337/deposit?uint256=1234&bytes32=0x0a1b2c3d0a1b2c3d0a1b2c3d0a1b2c3d0a1b2c3d0a1b2c3d0a1b2c3d0a1b2c3d"
        )
        #expect(plan.amountText == "12.34 EUR")
        #expect(plan.text.contains(plan.approveURI) && plan.text.contains(plan.depositURI))
        #expect(plan.text.contains("Credited after 12 confirmations"))
        #expect(plan.text.contains("one token unit is 0.01 EUR"))
    }

    /// Without an amount the Ethereum wallet asks for it (EIP-681): the amount parameter is left
    /// out, the others stay.
    @Test func exactRequestsWithoutAnAmount() throws {
        let plan = try EscrowDepositPlan(Self.instructions(), currency: Self.eur)
        #expect(
            plan.approveURI
                == "ethereum:0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512@31337/approve?address=0x5FbDB2315678afecb367f032d93F642f64180aa3"
        )
        #expect(plan.depositURI == "ethereum:0x5FbDB2315678afecb367f032d93F642f64180aa3@31337/deposit?bytes32=" + Self.ref)
        #expect(plan.amountText == nil)
    }

    /// Both requests match EIP-681's grammar (request = "ethereum:" target ["@" chain_id]
    /// ["/" function] ["?" key=value *("&" key=value)], target "0x" 40 hex digits, chain id digits).
    @Test func requestsFollowTheGrammar() throws {
        let grammar = try Regex(
            #"^ethereum:(pay-)?0x[0-9a-fA-F]{40}(@[0-9]+)?(/[A-Za-z_][A-Za-z0-9_]*)?(\?[a-z0-9]+=[0-9A-Za-z]+(&[a-z0-9]+=[0-9A-Za-z]+)*)?$"#
        )
        for amount: UInt64? in [nil, 1, 1234, Amount.max] {
            let plan = try EscrowDepositPlan(Self.instructions(), currency: Self.eur, amount: amount)
            #expect(try grammar.wholeMatch(in: plan.approveURI) != nil, "\(plan.approveURI)")
            #expect(try grammar.wholeMatch(in: plan.depositURI) != nil, "\(plan.depositURI)")
        }
        // The largest amount is written whole, never in a rounded scientific form.
        #expect(
            try EscrowDepositPlan(Self.instructions(), currency: Self.eur, amount: Amount.max).depositURI.contains(
                "uint256=9223372036854775807&"))
    }

    /// Token units are minor units: the decimals must be the currency's digits (0 for JPY, 3 for
    /// KWD), else no request is made — an amount would be off by a power of ten.
    @Test func decimalsMustBeTheCurrencysMinorDigits() throws {
        let yen = try EscrowDepositPlan(Self.instructions(decimals: 0, currency: "JPY"), currency: Currency("JPY")!, amount: 500)
        #expect(yen.depositURI.contains("uint256=500&"))
        #expect(yen.amountText == "500 JPY")
        let dinar = try EscrowDepositPlan(
            Self.instructions(decimals: 3, currency: "KWD"), currency: Currency("KWD")!, amount: 1_500)
        #expect(dinar.amountText == "1.500 KWD")
        for decimals in [18, 6, 0, 3] {
            #expect(throws: EscrowDepositError.decimalsMismatch(tokenDecimals: decimals, currency: Self.eur)) {
                try EscrowDepositPlan(Self.instructions(decimals: decimals), currency: Self.eur, amount: 100)
            }
        }
        let text = EscrowDepositError.decimalsMismatch(tokenDecimals: 18, currency: Self.eur).description
        #expect(text.contains("18 decimals") && text.contains("EUR amounts have 2"))
    }

    @Test func otherCurrencyAndMalformedPartsAreRefused() {
        #expect(throws: EscrowDepositError.currencyMismatch(issuer: "USD", wallet: Self.eur)) {
            try EscrowDepositPlan(Self.instructions(currency: "USD"), currency: Self.eur)
        }
        let zero = "0x" + String(repeating: "0", count: 40)
        for (field, instructions) in [
            ("escrow", Self.instructions(escrow: "0x5FbDB2315678afecb367f032d93F642f64180aa")),
            ("escrow", Self.instructions(escrow: zero)),
            ("token", Self.instructions(token: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512&uint256=1")),
            ("accountRef", Self.instructions(ref: "0x1234")),
            ("accountRef", Self.instructions(ref: String(repeating: "ab", count: 32))),
            ("accountRef", Self.instructions(ref: "0x" + String(repeating: "zz", count: 32))),
        ] {
            #expect(throws: EscrowDepositError.self, "\(field)") { try EscrowDepositPlan(instructions, currency: Self.eur) }
            do {
                _ = try EscrowDepositPlan(instructions, currency: Self.eur)
            } catch {
                guard case .malformed(let named, _) = error else {
                    Issue.record("\(error)")
                    continue
                }
                #expect(named == field)
            }
        }
        #expect(throws: EscrowDepositError.self) { try EscrowDepositPlan(Self.instructions(), currency: Self.eur, amount: 0) }
        #expect(throws: EscrowDepositError.self) {
            try EscrowDepositPlan(Self.instructions(), currency: Self.eur, amount: Amount.max + 1)
        }
    }

    /// Format only: 0x and 40 hex digits in any case, not zero. A mixed-case checksum is the
    /// issuer's to check (the wallet has no Keccak), so a wrongly checksummed address passes here.
    @Test func addressFormatCheck() throws {
        let good = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
        #expect(try AddressFormat.check(good) == good)
        #expect(try AddressFormat.check("  \(good.lowercased())\n") == good.lowercased())
        #expect(try AddressFormat.check("0x" + good.dropFirst(2).uppercased()) == "0x" + good.dropFirst(2).uppercased())
        #expect(
            try AddressFormat.check("0x5fBDB2315678afecb367f032d93F642f64180aa3") == "0x5fBDB2315678afecb367f032d93F642f64180aa3")
        let cases: [(String, EVMAddressError)] = [
            ("", .empty), ("   ", .empty),
            ("5FbDB2315678afecb367f032d93F642f64180aa3", .missingPrefix),
            ("0X5FbDB2315678afecb367f032d93F642f64180aa3", .missingPrefix),
            ("0x5FbDB2315678afecb367f032d93F642f64180aa", .wrongLength(39)),
            ("0x5FbDB2315678afecb367f032d93F642f64180aa3a", .wrongLength(41)),
            ("0x5FbDB2315678afecb367f032d93F642f64180aaG", .notHex),
            ("0x5FbDB2315678afecb367f032d93F642f64 80aa3", .notHex),
            ("0x" + String(repeating: "0", count: 40), .zero),
            ("vitalik.eth", .missingPrefix),
        ]
        for (text, expected) in cases {
            #expect(throws: expected, "\(text)") { try AddressFormat.check(text) }
        }
        #expect(EVMAddressError.wrongLength(39).description.contains("this one has 39"))
        #expect(AddressFormat.checksumNote.contains("issuer verifies"))
    }
}
