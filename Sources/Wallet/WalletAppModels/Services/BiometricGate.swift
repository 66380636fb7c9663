/// Face ID / Touch ID in front of the wallet (the biometric lock in Settings, and before a
/// payment when the lock is on). The app's implementation wraps LocalAuthentication.
public protocol BiometricGate: Sendable {
    /// Whether the device can authenticate at all; the lock cannot be turned on without it.
    var isAvailable: Bool { get async }
    /// Asks the person to authenticate, showing `reason`; true only when they did. A cancel,
    /// a failure or missing hardware is false: the caller stays locked.
    func authenticate(reason: String) async -> Bool
}

/// A device without biometrics (Linux, the command line): never available, never passes, so a
/// biometric lock cannot be turned on and nothing is unlocked by accident.
public struct NoBiometrics: BiometricGate {
    public init() {}
    public var isAvailable: Bool { false }
    public func authenticate(reason: String) async -> Bool { false }
}
