import Crypto

/// A key type whose values never change after they are made, so a value may be read from any
/// number of threads at once.
///
/// Conform only such types. The conformances below are the whole list `SendableKey` vouches for;
/// each type's every operation (signing, key agreement, sealing, opening, reading the bytes or the
/// public key) reads the key and returns a new value. None has a mutating method or a settable
/// property, and its storage (corecrypto on Apple platforms, BoringSSL in swift-crypto) is written
/// only by its initializer.
public protocol ImmutableKey {}

extension P256.Signing.PrivateKey: ImmutableKey {}
extension P256.Signing.PublicKey: ImmutableKey {}
extension P256.KeyAgreement.PrivateKey: ImmutableKey {}
extension P256.KeyAgreement.PublicKey: ImmutableKey {}
extension SymmetricKey: ImmutableKey {}

/// Holds a CryptoKit key so that a `Sendable` type can store it on every platform.
///
/// swift-crypto declares its key types `Sendable`, but only on Linux: on Apple platforms
/// `import Crypto` is Apple's CryptoKit, whose keys are not `Sendable` (through the iOS 18 and
/// macOS 15 SDKs at least). A `Sendable` struct that stores a key directly therefore compiles on
/// Linux and fails in Xcode under Swift 6. Store the key in a `SendableKey` instead:
///
/// ```swift
/// struct Signer: Sendable {
///     private let key: SendableKey<P256.Signing.PrivateKey>
///     func sign(_ message: [UInt8]) throws -> P256.Signing.ECDSASignature {
///         try key.value.signature(for: message)
///     }
/// }
/// ```
///
/// Why sharing it is safe: the wrapper holds its key in a `let`, and `Key` is an `ImmutableKey`,
/// a type with no mutable state a second thread could race on. That is exactly the guarantee
/// swift-crypto's own `Sendable` conformances state for the same types.
public struct SendableKey<Key: ImmutableKey>: @unchecked Sendable {
    /// The key.
    public let value: Key

    /// Wraps `value`.
    public init(_ value: Key) {
        self.value = value
    }
}
