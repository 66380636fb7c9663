import ArgumentParser
import EconomySimulation
import Foundation

/// `wallet-economy`: the adversarial economy (docs/reliability.md §3) — the real wallet engine
/// and the real issuer in one process, through many offline payments with cheaters in them,
/// with the money rules checked as it goes. Exit status 1 when any invariant broke.
@main
struct WalletEconomy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wallet-economy",
        abstract: "Simulate an offline economy with cheaters against the real engine and issuer; check the money rules.")

    @Option(help: "Honest offline payments to complete.") var payments = 2_000
    @Option(help: "Wallets (each with its own account).") var wallets = 40
    @Option(help: "Fraction of wallets that cheat (0 to 1).") var cheaters = 0.1
    @Option(help: "Simulated days the payments are spread over.") var days = 4.0
    @Option(help: "Seed of every decision the simulator makes (printed; the same seed replays the same economy).") var seed:
        UInt64?
    @Option(help: "Issuer database: sqlite or postgres.") var database = "sqlite"
    @Option(help: "PostgreSQL server URL (default: OW_TEST_POSTGRES_URL).") var postgresURL: String?
    @Option(help: "Directory for the wallets and the SQLite issuer (default: /dev/shm, else the temporary directory).")
    var directory: String?
    @Option(help: "Maximum hops before a note must be refreshed online.") var maxHops = 4
    @Option(help: "Stop the payments after this many wall-clock minutes; the final settlement and checks still run.")
    var stopAfterMinutes: Double?
    @Option(help: "Wallets kept open at once (each a SQLite pool; more is faster and uses more memory).") var openWallets = 256
    @Option(help: "Stop the payments when the machine has less memory available than this many GiB (the run lives in /dev/shm).")
    var minAvailableGB = 4.0
    @Option(help: "Plant a fault the checks must catch: \(EconomySabotage.allCases.map(\.rawValue).joined(separator: ", ")).")
    var sabotage: String?
    @Flag(help: "Print the final report as JSON on standard output.") var json = false

    func run() async throws {
        var config = EconomyConfig()
        config.payments = payments
        config.wallets = wallets
        config.cheaters = cheaters
        config.days = days
        config.seed = seed ?? UInt64.random(in: 1...UInt64(UInt32.max))
        config.directory = directory
        config.maxHops = maxHops
        config.openWallets = openWallets
        config.minAvailableMemory = Int64(minAvailableGB * 1_073_741_824)
        config.progressEvery = max(1_000, payments / 100)
        switch database {
        case "sqlite": config.database = .sqlite
        case "postgres":
            guard let url = postgresURL ?? ProcessInfo.processInfo.environment["OW_TEST_POSTGRES_URL"] else {
                throw ValidationError("--database postgres needs --postgres-url or OW_TEST_POSTGRES_URL")
            }
            config.database = .postgres(url: url)
        default: throw ValidationError("--database is sqlite or postgres")
        }
        if let sabotage {
            guard let s = EconomySabotage(rawValue: sabotage) else { throw ValidationError("unknown --sabotage \(sabotage)") }
            config.sabotage = s
        }
        let began = Date()
        config.progress = { line in
            FileHandle.standardError.write(Data("[\(String(format: "%7.1f", Date().timeIntervalSince(began))) s] \(line)\n".utf8))
        }
        FileHandle.standardError.write(Data("wallet-economy: seed \(config.seed) (replay with --seed \(config.seed))\n".utf8))
        let report = try await Economy.run(config, stopAt: stopAfterMinutes.map { began.addingTimeInterval($0 * 60) })
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.text)
        }
        if !report.violations.isEmpty { throw ExitCode(1) }
    }
}
