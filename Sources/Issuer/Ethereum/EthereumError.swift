/// Everything the Ethereum primitives refuse, each with a message that says what was wrong and
/// what to do about it. No case ever carries secret key material.
public enum EthereumError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Text that should be 0x-prefixed hexadecimal is not (what it is, and why).
    case invalidHex(String)
    /// A hex quantity (JSON-RPC integer) that is malformed or does not fit the expected width.
    case invalidQuantity(String)
    /// Text or bytes that are not a 20-byte address.
    case invalidAddress(String)
    /// A mixed-case address whose EIP-55 checksum does not match: probably mistyped.
    case badChecksum(String)
    /// The zero address, which is nobody's: money sent there is burnt.
    case zeroAddress
    /// RLP input that is truncated, non-canonical or otherwise not decodable.
    case invalidRLP(RLPFault)
    /// ABI data that does not decode as the expected type, or arguments that do not match a signature.
    case abi(String)
    /// A private key outside 1 ..< n (the secp256k1 group order), or of the wrong length.
    case invalidPrivateKey(String)
    /// A key file that cannot be read or does not hold one key.
    case keyFile(path: String, reason: String)
    /// A key file that other users may read (mode & 0o077 ≠ 0).
    case insecureKeyFile(path: String, mode: UInt16)
    /// A signature that libsecp256k1 refused to make, parse or recover.
    case signature(String)
    /// A serialized transaction that does not decode.
    case invalidTransaction(String)

    public var description: String {
        switch self {
        case .invalidHex(let why): "invalid hex: \(why)"
        case .invalidQuantity(let why): "invalid hex quantity: \(why)"
        case .invalidAddress(let why): "invalid address: \(why) (expected 0x followed by 40 hex digits)"
        case .badChecksum(let text):
            "address \(text) has a wrong EIP-55 checksum (mixed case that does not match): check it for typos, or give it all in lower case"
        case .zeroAddress: "the zero address 0x0000000000000000000000000000000000000000 belongs to nobody: give a real address"
        case .invalidRLP(let fault): "invalid RLP: \(fault)"
        case .abi(let why): "ABI: \(why)"
        case .invalidPrivateKey(let why): "invalid private key: \(why)"
        case .keyFile(let path, let reason): "key file \(path): \(reason)"
        case .insecureKeyFile(let path, let mode):
            "key file \(path) is readable by other users (mode \(String(mode, radix: 8))): run `chmod 600 \(path)` and, if others may have read it, treat the key as leaked"
        case .signature(let why): "secp256k1: \(why)"
        case .invalidTransaction(let why): "invalid transaction: \(why)"
        }
    }
}

/// Why RLP input was refused (Ethereum yellow paper, appendix B: only the canonical encoding is valid).
public enum RLPFault: Equatable, Sendable, CustomStringConvertible {
    /// The input ends before the item it announces.
    case truncated
    /// Bytes follow the single top-level item.
    case trailingBytes
    /// A valid item, encoded in a longer form than the canonical one (the reason says which).
    case nonCanonical(String)
    /// Lists nested deeper than the decoder accepts.
    case tooDeep
    /// A well-formed item of the wrong shape for what the caller expected (a list for a string,
    /// an integer with leading zeros or too wide, …).
    case unexpected(String)

    public var description: String {
        switch self {
        case .truncated: "input ends in the middle of an item"
        case .trailingBytes: "bytes follow the top-level item"
        case .nonCanonical(let why): "non-canonical encoding: \(why)"
        case .tooDeep: "lists nested too deeply"
        case .unexpected(let why): why
        }
    }
}
