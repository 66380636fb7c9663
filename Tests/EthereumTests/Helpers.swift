import Ethereum
import Testing

/// Bytes from hex text with or without 0x (test vectors are written both ways).
func bytes(_ text: String) -> [UInt8] {
    try! Hex.decode(text, requirePrefix: false)
}

func hex(_ value: [UInt8]) -> String { Hex.encode(value, prefixed: false) }

/// The error a throwing expression produced, or nil if it did not throw. (Closures infer
/// `any Error`, so the typed error is recovered by a cast; another type fails the test.)
func ethereumError(_ body: () throws -> Void) -> EthereumError? {
    do {
        try body()
        return nil
    } catch let error as EthereumError {
        return error
    } catch {
        Issue.record("expected an EthereumError, got \(error)")
        return nil
    }
}
