/// One spend inside a chain: `transfer` spends `state`, owned by `owner`.
public struct SpendEdge: Hashable, Sendable {
    public let state: StateRef
    public let owner: PublicKeyBytes
    public let transfer: Transfer
    /// Index of the transfer in its chain (0 = first transfer after issue).
    public let hop: Int
}

/// A note state whose chain passed verification.
public struct VerifiedState: Hashable, Sendable {
    public let ref: StateRef
    public let owner: PublicKeyBytes
    public let amount: UInt64
    public let currency: Currency
    public let noteID: NoteID
    public let issuedAt: Timestamp
    public let expiresAt: Timestamp
    public let chain: Chain
    /// Every spend in the chain, root first.
    public let spends: [SpendEdge]

    public var hops: Int { chain.hops }
}

/// A payment bundle that passed verification against a request.
public struct VerifiedPayment: Hashable, Sendable {
    public let paymentID: Digest32
    public let nonce: Nonce
    public let currency: Currency
    /// Total paid to the payee, in minor units.
    public let amount: UInt64
    /// The states the payee now holds, one per chain, in bundle order.
    public let received: [VerifiedState]
    public let bundle: PaymentBundle
}

/// Two different transfers of the same note state, each validly signed by its owner.
/// `chain` proves the state and its owner, so anyone with the keyset can check the proof.
public struct FraudProof: Hashable, Sendable {
    public let chain: Chain
    public let first: Transfer
    public let second: Transfer

    public init(chain: Chain, first: Transfer, second: Transfer) {
        self.chain = chain
        self.first = first
        self.second = second
    }

    public var state: StateRef { chain.heldRef }
    /// The wallet key that signed both transfers.
    public var cheater: PublicKeyBytes? { chain.heldOutput?.owner }
}

extension Chain {
    /// The prefix of this chain that proves the state spent by `edge` (for fraud proofs).
    public func proving(_ edge: SpendEdge) -> Chain {
        guard edge.hop > 0 else { return Chain(note: note) }
        let previous = transfers[edge.hop - 1]
        let index = previous.outputs.indices.first { previous.outputRef($0) == edge.state } ?? 0
        return Chain(note: note, transfers: Array(transfers.prefix(edge.hop)), heldIndex: UInt8(index))
    }
}
