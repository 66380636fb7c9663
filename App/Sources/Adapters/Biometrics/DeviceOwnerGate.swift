#if canImport(LocalAuthentication)
import Foundation
import LocalAuthentication
import WalletAppModels

/// Face ID / Touch ID with the device passcode as the fallback (LocalAuthentication's
/// `.deviceOwnerAuthentication`): a person whose face is not recognised (a mask, gloves, a
/// broken sensor) still gets into their own wallet, and the system counts failures and falls
/// back to the passcode itself. A fresh `LAContext` per call, so one success never unlocks the
/// next prompt.
struct DeviceOwnerGate: BiometricGate {
    /// True when the device can authenticate its owner at all (a passcode is set; biometrics
    /// optional). Without a passcode the lock cannot be turned on.
    var isAvailable: Bool {
        get async {
            var error: NSError?
            return LAContext().canEvaluatePolicy(.deviceOwnerAuthentication, error: &error)
        }
    }

    /// Shows the system prompt with `reason`; false on cancel, failure or no passcode.
    func authenticate(reason: String) async -> Bool {
        let context = LAContext()
        do {
            return try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: reason)
        } catch {
            // LAError (userCancel, appCancel, systemCancel, passcodeNotSet…): stay locked; the
            // lock screen says "not recognized" and offers the attempt again.
            return false
        }
    }
}
#endif
