/// The flows every client runs on top of the wallet engine and the issuer client: the command
/// line today, the iOS app next. Clients stay thin shells over these calls.
public enum WalletFlows {}
