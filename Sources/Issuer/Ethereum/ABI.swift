/// The Solidity contract ABI, for the calls and events this project uses: static words
/// (`uintN`, `address`, `bytes32`, `bool`) and the dynamic `string` and `bytes` (the token's
/// constructor takes strings). Tuples and arrays are not needed and not supported.
public enum ABI {
    /// One argument value.
    public enum Value: Equatable, Sendable {
        /// An unsigned integer as its 32-byte big-endian word.
        case uint256(word: [UInt8])
        case address(Address)
        case bytes32([UInt8])
        case bool(Bool)
        case string(String)
        case bytes([UInt8])

        /// A `uint256` (or narrower `uintN`) argument.
        public static func uint256(_ value: UInt64) -> Value { .uint256(word: ABI.word(value)) }
        /// A `uint256` (or narrower `uintN`) argument.
        public static func uint256(_ value: UInt128) -> Value { .uint256(word: ABI.word(value)) }
        /// A `uint8` argument (token decimals).
        public static func uint8(_ value: UInt8) -> Value { .uint256(word: ABI.word(UInt64(value))) }
    }

    /// The first 4 bytes of keccak256 of the canonical signature, e.g. "transfer(address,uint256)".
    public static func selector(_ signature: String) -> [UInt8] {
        Array(Keccak256.hash(signature).prefix(4))
    }

    /// topic0 of an event: keccak256 of its canonical signature, e.g.
    /// "Transfer(address,address,uint256)".
    public static func eventTopic(_ signature: String) -> [UInt8] {
        Keccak256.hash(signature)
    }

    /// A 32-byte big-endian word holding `value`.
    public static func word(_ value: some UnsignedInteger & FixedWidthInteger) -> [UInt8] {
        let bytes = BigEndian.minimal(value)
        return [UInt8](repeating: 0, count: 32 - bytes.count) + bytes
    }

    /// The head/tail encoding of `values` as a tuple (what follows a selector, or a bytecode).
    /// Words that should be 32 bytes but are not (a malformed `.uint256(word:)` or `.bytes32`)
    /// are refused by `Function.callData`; here they are padded or cut to keep the layout.
    public static func encode(_ values: [Value]) -> [UInt8] {
        var head: [UInt8] = []
        var tail: [UInt8] = []
        let headSize = 32 * values.count
        for value in values {
            switch value {
            case .uint256(let word): head += fit32(word, left: true)
            case .address(let address): head += address.word
            case .bytes32(let bytes): head += fit32(bytes, left: false)
            case .bool(let flag): head += word(UInt64(flag ? 1 : 0))
            case .string(let text):
                head += word(UInt64(headSize + tail.count))
                tail += dynamic(Array(text.utf8))
            case .bytes(let bytes):
                head += word(UInt64(headSize + tail.count))
                tail += dynamic(bytes)
            }
        }
        return head + tail
    }

    /// Contract creation data: the init bytecode followed by the encoded constructor arguments.
    public static func constructorCallData(bytecode: [UInt8], arguments: [Value]) -> [UInt8] {
        bytecode + encode(arguments)
    }

    private static func dynamic(_ bytes: [UInt8]) -> [UInt8] {
        let padding = (32 - bytes.count % 32) % 32
        return word(UInt64(bytes.count)) + bytes + [UInt8](repeating: 0, count: padding)
    }

    private static func fit32(_ bytes: [UInt8], left: Bool) -> [UInt8] {
        if bytes.count >= 32 { return left ? Array(bytes.suffix(32)) : Array(bytes.prefix(32)) }
        let zeros = [UInt8](repeating: 0, count: 32 - bytes.count)
        return left ? zeros + bytes : bytes + zeros
    }

    /// A function by its canonical signature ("deposit(uint256,bytes32)"): its selector, and call
    /// data checked against the parameter types, so a call with the wrong arity or a wrong type
    /// is refused here rather than reverting (or worse, succeeding) on the blockchain.
    public struct Function: Sendable, Equatable {
        /// The canonical signature, e.g. "payout(address,uint256,bytes32)".
        public let signature: String
        /// The function's name, before the parenthesis.
        public let name: String
        /// The parameter types, as written in the signature.
        public let parameterTypes: [String]
        /// keccak256(signature)[0..<4].
        public let selector: [UInt8]

        /// Parses "name(type,type,…)" without spaces. A malformed signature yields a function
        /// whose `callData` always throws (the types cannot match).
        public init(signature: String) {
            self.signature = signature
            self.selector = ABI.selector(signature)
            if let open = signature.firstIndex(of: "("), signature.last == ")" {
                name = String(signature[..<open])
                let inside = signature[signature.index(after: open)..<signature.index(before: signature.endIndex)]
                parameterTypes =
                    inside.isEmpty ? [] : inside.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            } else {
                name = signature
                parameterTypes = ["<malformed signature>"]
            }
        }

        /// selector ‖ encode(arguments), after checking the arguments against the signature's types.
        public func callData(_ arguments: [Value]) throws(EthereumError) -> [UInt8] {
            guard arguments.count == parameterTypes.count else {
                throw .abi("\(signature) takes \(parameterTypes.count) arguments, \(arguments.count) given")
            }
            for (index, (type, value)) in zip(parameterTypes, arguments).enumerated() {
                try ABI.check(value, against: type, position: index, in: signature)
            }
            return selector + ABI.encode(arguments)
        }
    }

    static func check(_ value: Value, against type: String, position: Int, in signature: String) throws(EthereumError) {
        let fits: Bool
        switch value {
        case .uint256(let word):
            if type.hasPrefix("uint"), let bits = Int(type.dropFirst(4)) ?? (type == "uint" ? 256 : nil), bits % 8 == 0,
                (8...256).contains(bits)
            {
                guard word.count == 32 else {
                    throw .abi("argument \(position + 1) of \(signature): a uint word must be 32 bytes, not \(word.count)")
                }
                guard word.prefix(32 - bits / 8).allSatisfy({ $0 == 0 }) else {
                    throw .abi("argument \(position + 1) of \(signature) does not fit in \(type)")
                }
                fits = true
            } else {
                fits = false
            }
        case .address: fits = type == "address"
        case .bytes32(let bytes):
            guard type == "bytes32" else {
                fits = false
                break
            }
            guard bytes.count == 32 else {
                throw .abi("argument \(position + 1) of \(signature): bytes32 needs 32 bytes, not \(bytes.count)")
            }
            fits = true
        case .bool: fits = type == "bool"
        case .string: fits = type == "string"
        case .bytes: fits = type == "bytes"
        }
        guard fits else { throw .abi("argument \(position + 1) of \(signature) must be \(type), given \(value.typeName)") }
    }

    // MARK: Decoding

    /// The 32-byte words of return data or log data; refuses a length that is not a multiple of 32.
    public static func words(_ data: [UInt8]) throws(EthereumError) -> [[UInt8]] {
        guard data.count % 32 == 0 else { throw .abi("\(data.count) bytes of data is not a whole number of 32-byte words") }
        return stride(from: 0, to: data.count, by: 32).map { Array(data[$0..<($0 + 32)]) }
    }

    /// The word at `index` (0-based) of `data`; a typed error if the data is too short.
    public static func word(_ data: [UInt8], at index: Int) throws(EthereumError) -> [UInt8] {
        guard index >= 0, data.count >= 32 * (index + 1) else {
            throw .abi("expected at least \(index + 1) words, got \(data.count) bytes")
        }
        return Array(data[(32 * index)..<(32 * index + 32)])
    }

    /// A uint256 word as UInt64; a value that does not fit is an error, never truncated.
    public static func decodeUInt64(_ word: [UInt8]) throws(EthereumError) -> UInt64 {
        try decodeUInt(word, as: UInt64.self)
    }

    /// The decimal digits of a big-endian unsigned number of any length (a uint256 word: log
    /// lines and tools show amounts beyond 128 bits exactly).
    public static func decimalString(_ bigEndian: [UInt8]) -> String {
        var number = Array(bigEndian.drop(while: { $0 == 0 }))
        if number.isEmpty { return "0" }
        var digits: [UInt8] = []
        // Schoolbook long division by 10, most significant byte first, until nothing is left.
        while !number.isEmpty {
            var remainder: UInt16 = 0
            var quotient: [UInt8] = []
            quotient.reserveCapacity(number.count)
            for byte in number {
                let value = remainder << 8 | UInt16(byte)
                let q = UInt8(value / 10)
                remainder = value % 10
                if !(quotient.isEmpty && q == 0) { quotient.append(q) }
            }
            digits.append(UInt8(ascii: "0") + UInt8(remainder))
            number = quotient
        }
        return String(decoding: digits.reversed(), as: UTF8.self)
    }

    /// A uint256 word as UInt128 (wei amounts); a value that does not fit is an error.
    public static func decodeUInt128(_ word: [UInt8]) throws(EthereumError) -> UInt128 {
        try decodeUInt(word, as: UInt128.self)
    }

    private static func decodeUInt<T: UnsignedInteger & FixedWidthInteger>(
        _ word: [UInt8], as type: T.Type
    ) throws(EthereumError) -> T {
        guard word.count == 32 else { throw .abi("a uint256 word is 32 bytes, got \(word.count)") }
        guard let value = BigEndian.integer(word, as: T.self) else {
            throw .abi("uint256 \(Hex.encode(BigEndian.trimmed(word))) does not fit in \(T.bitWidth) bits")
        }
        return value
    }

    /// An address word (12 zero bytes, then the address); nonzero padding is refused.
    public static func decodeAddress(_ word: [UInt8]) throws(EthereumError) -> Address {
        guard word.count == 32 else { throw .abi("an address word is 32 bytes, got \(word.count)") }
        guard word.prefix(12).allSatisfy({ $0 == 0 }) else { throw .abi("address word \(Hex.encode(word)) has nonzero padding") }
        return Address(unchecked: Array(word.suffix(20)))
    }

    /// A bool word: exactly 0 or 1.
    public static func decodeBool(_ word: [UInt8]) throws(EthereumError) -> Bool {
        guard word.count == 32, word.prefix(31).allSatisfy({ $0 == 0 }), word[31] <= 1 else {
            throw .abi("bool word \(Hex.encode(word)) is neither 0 nor 1")
        }
        return word[31] == 1
    }

    /// A dynamic `bytes` value whose offset is in head word `index` of `data` (e.g. index 0
    /// for a function returning one `bytes` or `string`).
    public static func decodeBytes(_ data: [UInt8], at index: Int = 0) throws(EthereumError) -> [UInt8] {
        let offsetWord = try word(data, at: index)
        guard let offset = BigEndian.integer(offsetWord, as: UInt32.self).map(Int.init), offset % 32 == 0,
            data.count >= offset + 32
        else {
            throw .abi("dynamic value offset \(Hex.encode(BigEndian.trimmed(offsetWord))) points outside the data")
        }
        let lengthWord = Array(data[offset..<(offset + 32)])
        guard let length = BigEndian.integer(lengthWord, as: UInt32.self).map(Int.init), data.count >= offset + 32 + length else {
            throw .abi("dynamic value length runs past the end of the data")
        }
        return Array(data[(offset + 32)..<(offset + 32 + length)])
    }

    /// A dynamic `string` value (valid UTF-8 required) whose offset is in head word `index`.
    public static func decodeString(_ data: [UInt8], at index: Int = 0) throws(EthereumError) -> String {
        let bytes = try decodeBytes(data, at: index)
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .abi("string is not valid UTF-8") }
        return text
    }
}

extension ABI.Value {
    var typeName: String {
        switch self {
        case .uint256: "uint256"
        case .address: "address"
        case .bytes32: "bytes32"
        case .bool: "bool"
        case .string: "string"
        case .bytes: "bytes"
        }
    }
}
