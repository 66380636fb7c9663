import Foundation
import OfflineNotes
import WalletSync

/// Why text typed as an Ethereum address is not one. Checked on the wallet at the level of the
/// format only: the wallet has no Keccak-256, so the EIP-55 checksum of a mixed-case address is
/// verified by the issuer, which refuses a wrong one before anything is debited.
public enum EVMAddressError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing typed.
    case empty
    /// Does not start with "0x".
    case missingPrefix
    /// Not 40 hexadecimal digits after "0x" (the count found).
    case wrongLength(Int)
    /// A character after "0x" that is not 0–9, a–f or A–F.
    case notHex
    /// 0x000…0: tokens sent there are lost for good.
    case zero

    public var description: String {
        switch self {
        case .empty: "Enter the address to pay on the blockchain: 0x followed by 40 hexadecimal digits."
        case .missingPrefix: "An address starts with 0x, followed by 40 hexadecimal digits."
        case .wrongLength(let count):
            "An address has 40 hexadecimal digits after 0x; this one has \(count). Copy it again from your wallet."
        case .notHex: "An address has only the digits 0–9 and the letters a–f after 0x. Copy it again from your wallet."
        case .zero: "That is the zero address: tokens sent to it are lost. Enter your own address."
        }
    }
}

/// Ethereum addresses as the wallet handles them: text the issuer checks in full.
public enum AddressFormat {
    /// What the address field says about checksums (the wallet verifies the format only).
    public static let checksumNote =
        "A mixed-case address carries an EIP-55 checksum; the issuer verifies it and refuses a mistyped address before anything is debited."

    /// `text` without surrounding whitespace when it has an address's form: "0x" and 40
    /// hexadecimal digits in any case, not all zero. The checksum of a mixed-case address is
    /// left to the issuer (see `checksumNote`); the text is sent as typed so it can check it.
    public static func check(_ text: String) throws(EVMAddressError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .empty }
        guard trimmed.hasPrefix("0x") else { throw .missingPrefix }
        let digits = trimmed.dropFirst(2)
        guard digits.allSatisfy(\.isHexDigitASCII) else { throw .notHex }
        guard digits.count == 40 else { throw .wrongLength(digits.count) }
        guard digits.contains(where: { $0 != "0" }) else { throw .zero }
        return trimmed
    }

    /// Whether `text` is "0x" and exactly `bytes` × 2 hexadecimal digits (an account
    /// reference, a withdrawal id or a transaction hash: 32 bytes).
    public static func isHex(_ text: String, bytes: Int) -> Bool {
        text.hasPrefix("0x") && text.count == 2 + 2 * bytes && text.dropFirst(2).allSatisfy(\.isHexDigitASCII)
    }
}

/// EIP-681 transaction requests ("URL Format for Transaction Requests"): text that ordinary
/// Ethereum wallets open from a QR code, prefilled with the contract call to confirm.
///
/// `ethereum:<target>@<chain id>/<function>?<type>=<value>&…`: the parameters are the function's
/// arguments in order, keyed by their ABI type; amounts are in the token's atomic units as plain
/// decimal digits (here token units = minor units, so nothing is scaled). Without an amount the
/// wallet that opens the request asks for one (EIP-681: "with no indicated amount, the user
/// should be prompted to enter the amount").
public enum EIP681 {
    /// The escrow's `deposit(uint256 amount, bytes32 accountRef)`.
    public static func deposit(escrow: String, chainID: UInt64, accountRef: String, amount: UInt64?) -> String {
        request(escrow, chainID: chainID, function: "deposit", [amount.map { ("uint256", "\($0)") }, ("bytes32", accountRef)])
    }

    /// The token's `approve(address spender, uint256 amount)`: lets the escrow take `amount`
    /// from the sender in the deposit that follows.
    public static func approve(token: String, chainID: UInt64, spender: String, amount: UInt64?) -> String {
        request(token, chainID: chainID, function: "approve", [("address", spender), amount.map { ("uint256", "\($0)") }])
    }

    private static func request(_ target: String, chainID: UInt64, function: String, _ parameters: [(String, String)?]) -> String
    {
        // Every value is an address, 0x-hex or decimal digits: nothing to percent-encode.
        let query = parameters.compactMap { $0.map { "\($0.0)=\($0.1)" } }.joined(separator: "&")
        return "ethereum:\(target)@\(chainID)/\(function)" + (query.isEmpty ? "" : "?" + query)
    }
}

/// Why the issuer's deposit instructions cannot be shown as they are.
public enum EscrowDepositError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The token's decimals differ from the currency's minor-unit digits: an amount in the
    /// request would be off by a power of ten, so none is made.
    case decimalsMismatch(tokenDecimals: Int, currency: Currency)
    /// The issuer settles this account in another currency than the wallet holds.
    case currencyMismatch(issuer: String, wallet: Currency)
    /// A field is not what it must be (which one, and what it held).
    case malformed(field: String, value: String)

    public var description: String {
        switch self {
        case .decimalsMismatch(let decimals, let currency):
            "The issuer's token has \(decimals) decimals but \(currency) amounts have \(currency.minorUnitDigits): amounts would be scaled wrongly, so no deposit request is made. Tell the issuer's operator."
        case .currencyMismatch(let issuer, let wallet):
            "The issuer settles this account on the blockchain in \(issuer), and this wallet holds \(wallet): no deposit request is made. Tell the issuer's operator."
        case .malformed(let field, let value):
            "The issuer's deposit instructions are malformed (\(field) is '\(value)'): no deposit request is made. Try again later, or tell the issuer's operator."
        }
    }
}

/// The deposit instructions checked against the wallet's currency, with the two EIP-681
/// requests a depositor's Ethereum wallet runs in order: approve, then deposit.
public struct EscrowDepositPlan: Sendable, Equatable {
    public let instructions: DepositInstructions
    public let currency: Currency
    /// Minor units (= token units) to deposit; nil leaves the amount to the depositor's wallet.
    public let amount: UInt64?
    /// Step 1: the token's `approve(escrow, amount)`.
    public let approveURI: String
    /// Step 2: the escrow's `deposit(amount, accountRef)`.
    public let depositURI: String

    /// Refuses instructions whose token decimals are not `currency`'s minor-unit digits (one
    /// token unit must be one minor unit), in another currency, or with a field that is not an
    /// address or a 32-byte reference — the requests are built only from checked parts.
    public init(_ instructions: DepositInstructions, currency: Currency, amount: UInt64? = nil) throws(EscrowDepositError) {
        guard instructions.currency == currency.code else {
            throw .currencyMismatch(issuer: instructions.currency, wallet: currency)
        }
        guard instructions.decimals == currency.minorUnitDigits else {
            throw .decimalsMismatch(tokenDecimals: instructions.decimals, currency: currency)
        }
        for (field, value) in [("escrow", instructions.escrow), ("token", instructions.token)] {
            guard (try? AddressFormat.check(value)) == value else { throw .malformed(field: field, value: value) }
        }
        guard AddressFormat.isHex(instructions.accountRef, bytes: 32) else {
            throw .malformed(field: "accountRef", value: instructions.accountRef)
        }
        if let amount, amount == 0 || amount > Amount.max { throw .malformed(field: "amount", value: "\(amount)") }
        self.instructions = instructions
        self.currency = currency
        self.amount = amount
        approveURI = EIP681.approve(
            token: instructions.token, chainID: instructions.chainID, spender: instructions.escrow, amount: amount)
        depositURI = EIP681.deposit(
            escrow: instructions.escrow, chainID: instructions.chainID, accountRef: instructions.accountRef, amount: amount)
    }

    /// The amount as the currency writes it ("12.34 EUR"), nil when none is set.
    public var amountText: String? { amount.map { "\(Amount.format($0, currency: currency)) \(currency)" } }

    /// The whole instructions as plain text, for Copy and for the command line.
    public var text: String {
        let i = instructions
        let much = amountText ?? "the amount you choose"
        return """
            Deposit \(currency) on the network with chain ID \(i.chainID) (one token unit is \(Amount.format(1, currency: currency)) \(currency)).
            Escrow:            \(i.escrow)
            Token:             \(i.token)
            Account reference: \(i.accountRef)
            Credited after \(i.confirmations) confirmation\(i.confirmations == 1 ? "" : "s").
            Step 1, approve the escrow to take \(much) of the token:
              \(approveURI)
            Step 2, deposit \(much) with your account reference:
              \(depositURI)
            """
    }
}

extension Character {
    fileprivate var isHexDigitASCII: Bool { isASCII && isHexDigit }
}
