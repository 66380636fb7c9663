/// The app's screen models: platform-neutral (Observation works on Linux), one per screen, so
/// the SwiftUI layer is a thin binding over tested logic.
public enum WalletAppModels {}
