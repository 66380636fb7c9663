/// An EIP-1559 ("type 2", dynamic fee) transaction before signing. Amounts of wei are UInt128
/// (3.4 × 10³⁸ wei is far beyond any supply); token amounts travel inside `data`.
public struct EIP1559Transaction: Equatable, Sendable {
    public var chainID: UInt64
    public var nonce: UInt64
    public var maxPriorityFeePerGas: UInt128
    public var maxFeePerGas: UInt128
    public var gasLimit: UInt64
    /// The recipient, or nil to create a contract from `data`.
    public var to: Address?
    public var value: UInt128
    public var data: [UInt8]

    /// The EIP-2718 type byte.
    public static let type: UInt8 = 0x02

    public init(
        chainID: UInt64, nonce: UInt64, maxPriorityFeePerGas: UInt128, maxFeePerGas: UInt128,
        gasLimit: UInt64, to: Address?, value: UInt128 = 0, data: [UInt8] = []
    ) {
        self.chainID = chainID
        self.nonce = nonce
        self.maxPriorityFeePerGas = maxPriorityFeePerGas
        self.maxFeePerGas = maxFeePerGas
        self.gasLimit = gasLimit
        self.to = to
        self.value = value
        self.data = data
    }

    /// The nine unsigned fields in EIP-1559 order, with an empty access list.
    var fields: [RLP] {
        [
            .uint(chainID), .uint(nonce), .uint(maxPriorityFeePerGas), .uint(maxFeePerGas), .uint(gasLimit),
            .bytes(to?.bytes ?? []), .uint(value), .bytes(data), .list([]),
        ]
    }

    /// keccak256(0x02 ‖ rlp([chainId, nonce, maxPriorityFeePerGas, maxFeePerGas, gasLimit, to,
    /// value, data, accessList])): what the sender signs.
    public var signingHash: [UInt8] {
        Keccak256.hash([Self.type] + RLP.list(fields).encoded)
    }

    /// Signs with `key`: the raw bytes to send with eth_sendRawTransaction and their hash.
    /// Refuses a priority fee above the max fee, which every node rejects (EIP-1559), so the
    /// caller's mistake shows here rather than as a node error.
    public func signed(with key: PrivateKey) throws(EthereumError) -> SignedTransaction {
        guard maxPriorityFeePerGas <= maxFeePerGas else {
            throw .invalidTransaction("max priority fee \(maxPriorityFeePerGas) wei exceeds max fee \(maxFeePerGas) wei per gas")
        }
        let signature = try key.sign(hash: signingHash)
        return SignedTransaction(transaction: self, yParity: signature.v, r: signature.r, s: signature.s)
    }
}

/// A signed EIP-1559 transaction: its wire bytes (`raw`) and its transaction hash.
public struct SignedTransaction: Equatable, Sendable {
    public let transaction: EIP1559Transaction
    /// The signature's recovery id, 0 or 1.
    public let yParity: UInt8
    /// r and s as 32-byte big-endian words.
    public let r: [UInt8]
    public let s: [UInt8]
    /// 0x02 ‖ rlp([the nine fields, yParity, r, s]): the eth_sendRawTransaction payload.
    public let raw: [UInt8]
    /// keccak256(raw): the transaction hash nodes and explorers show.
    public let hash: [UInt8]

    init(transaction: EIP1559Transaction, yParity: UInt8, r: [UInt8], s: [UInt8]) {
        self.transaction = transaction
        self.yParity = yParity
        self.r = [UInt8](repeating: 0, count: max(0, 32 - r.count)) + r
        self.s = [UInt8](repeating: 0, count: max(0, 32 - s.count)) + s
        let items = transaction.fields + [.uint(yParity), .bytes(BigEndian.trimmed(r)), .bytes(BigEndian.trimmed(s))]
        raw = [EIP1559Transaction.type] + RLP.list(items).encoded
        hash = Keccak256.hash(raw)
    }

    /// Decodes raw type-2 bytes (as stored, or as a node returns them). Refuses another type,
    /// a non-empty access list (this client never writes one), and non-canonical RLP.
    public init(raw: [UInt8]) throws(EthereumError) {
        guard raw.first == EIP1559Transaction.type else {
            throw .invalidTransaction("not an EIP-1559 (type 2) transaction")
        }
        let items = try RLP.decode(Array(raw.dropFirst())).listValue()
        guard items.count == 12 else { throw .invalidTransaction("\(items.count) fields, EIP-1559 has 12") }
        let toBytes = try items[5].bytesValue()
        let to: Address?
        switch toBytes.count {
        case 0: to = nil
        case 20: to = try Address(bytes: toBytes)
        default: throw .invalidTransaction("recipient of \(toBytes.count) bytes")
        }
        guard try items[8].listValue().isEmpty else { throw .invalidTransaction("access lists are not supported") }
        let transaction = EIP1559Transaction(
            chainID: try items[0].uintValue(), nonce: try items[1].uintValue(),
            maxPriorityFeePerGas: try items[2].uintValue(), maxFeePerGas: try items[3].uintValue(),
            gasLimit: try items[4].uintValue(), to: to, value: try items[6].uintValue(), data: try items[7].bytesValue())
        let yParity: UInt8 = try items[9].uintValue()
        guard yParity <= 1 else { throw .invalidTransaction("yParity \(yParity) is neither 0 nor 1") }
        let r = try items[10].bytesValue(), s = try items[11].bytesValue()
        guard r.count <= 32, s.count <= 32, r.first != 0, s.first != 0 else {
            throw .invalidTransaction("r and s must be canonical integers of at most 32 bytes")
        }
        self.init(transaction: transaction, yParity: yParity, r: r, s: s)
    }

    /// The address that signed this transaction (libsecp256k1 public key recovery).
    public func sender() throws(EthereumError) -> Address {
        try PrivateKey.recoverAddress(hash: transaction.signingHash, r: r, s: s, v: yParity)
    }
}
