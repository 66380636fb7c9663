// Planted mistake for `scripts/check-app-sdk --self-test`: compiled into the app, it must fail.
// CryptoKit's keys are not Sendable on Apple platforms (swift-crypto's are, on Linux): a
// Sendable type stores them through OfflineNotes' `SendableKey`, never directly.
// expect: non-Sendable type 'P256.Signing.PrivateKey'
import CryptoKit

struct PlantedKeyHolder: Sendable {
    let key: P256.Signing.PrivateKey
}
