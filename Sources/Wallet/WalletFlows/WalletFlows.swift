/// The flows every client runs on top of the wallet engine and the issuer client: the command
/// line (WalletCLI) and the iOS app (through WalletAppModels). Clients stay thin shells over
/// these calls.
public enum WalletFlows {}
