import Foundation

/// Where the simulated issuer keeps its books.
public enum EconomyDatabase: Sendable, Equatable {
    /// A SQLite file in the run's directory.
    case sqlite
    /// A fresh schema on the PostgreSQL server at this URL (dropped by nobody: name printed).
    case postgres(url: String)

    public var name: String {
        switch self {
        case .sqlite: "sqlite"
        case .postgres: "postgres"
        }
    }
}

/// A deliberate fault the simulator plants in itself, so a test can show the invariant
/// checker catches it (a simulator that cannot fail proves nothing).
public enum EconomySabotage: String, Sendable, CaseIterable {
    /// The simulator's own tally of money paid in is one cent off: conservation must fail.
    case miscountFunding = "miscount-funding"
    /// One honest payee's wallet marks a received payment settled without redeeming it (a sync
    /// bug): the issuer never credits it, and the end-of-run account check must name the payee.
    case payeeNeverRedeems = "payee-never-redeems"
}

/// The size and shape of one simulated economy.
public struct EconomyConfig: Sendable {
    /// Offline payments to complete (honest payments accepted by their payee; cheats are extra).
    public var payments: Int = 2_000
    public var wallets: Int = 40
    /// Fraction of wallets that cheat (double spends, tampering, replays, restores used twice).
    public var cheaters: Double = 0.1
    /// How often cheats happen, relative to the default: of every 1,000 events, 4 double
    /// spends, 2 tampered deliveries and 2 replays at 1 (short runs raise it to see every kind).
    public var cheatRate: Double = 1
    /// Simulated days the payments are spread over.
    public var days: Double = 4
    public var seed: UInt64 = 1
    public var database: EconomyDatabase = .sqlite
    /// Where wallets and the SQLite issuer live; a fresh directory under it is used and removed.
    /// Nil: /dev/shm when it exists (the simulation checks logic, not fsync; crash sweeps check
    /// durability), else the temporary directory.
    public var directory: String?
    public var maxHops = 4
    public var noteLifetime: UInt64 = 2 * 86_400
    public var redemptionGrace: UInt64 = 86_400
    /// Run the continuous invariant checks every this many simulated seconds (and at the end).
    public var checkInterval: UInt64 = 3_600
    /// The issuer's full book check (`Issuer.checkLedger`, a scan of the whole journal) runs on
    /// every this many continuous checks; the conservation, attribution and frozen checks on all.
    public var ledgerCheckEvery = 6
    /// Wallets kept open at once (the others are closed and reopened from their directory).
    public var openWallets = 256
    /// Stop the payments (then settle and check as usual) when the machine has less memory
    /// available than this: the run's files live in /dev/shm. Nil: never.
    public var minAvailableMemory: Int64?
    public var sabotage: EconomySabotage?
    /// Called with a progress line about every `progressEvery` payments.
    public var progressEvery = 10_000
    public var progress: (@Sendable (String) -> Void)?

    public init() {}
}
