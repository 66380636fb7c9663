import OfflineNotes

extension Wallet {
    /// Verifies an incoming payment for whichever of this wallet's requests it pays, found
    /// from the nonce its transfers carry, and returns the signed receipt (as
    /// `receive(_:for:method:transcriptHash:)`, which this calls).
    ///
    /// A scanned payment does not say which request it answers anywhere but in its transfers,
    /// so this finds it and a client does not parse the bundle. A nonce this wallet never
    /// issued is `unknownRequest`; a bundle that is not a payment is `rejected`.
    public func receive(
        _ bundleBytes: [UInt8], method: PaymentMethod = .qr, transcriptHash: Digest32? = nil
    ) throws(WalletError) -> ReceivedPayment {
        let bundle: PaymentBundle
        do { bundle = try PaymentBundle(decoding: bundleBytes) } catch { throw .rejected(error) }
        // Every transfer of one payment carries the request's nonce; verification checks they
        // agree, so the first one names the request to check them against.
        guard let nonce = bundle.chains.first?.transfers.last?.nonce else {
            throw .rejected(.malformed("the payment holds no transfer"))
        }
        return try receive(bundleBytes, for: nonce, method: method, transcriptHash: transcriptHash)
    }
}
