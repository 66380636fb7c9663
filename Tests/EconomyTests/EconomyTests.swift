import EconomySimulation
import Foundation
import Testing

/// The adversarial economy, short enough for every test run: the real wallet engine and the
/// real issuer through a couple of thousand offline payments with cheaters in them (docs/reliability.md §3).
@Suite struct EconomyTests {
    static var databases: [EconomyDatabase] {
        guard let url = ProcessInfo.processInfo.environment["OW_TEST_POSTGRES_URL"] else { return [.sqlite] }
        return [.sqlite, .postgres(url: url)]
    }

    static func config(_ database: EconomyDatabase, seed: UInt64 = 20_261_124) -> EconomyConfig {
        var config = EconomyConfig()
        config.payments = 1_000
        config.wallets = 24
        config.cheaters = 0.2
        config.cheatRate = 5
        config.days = 3
        config.seed = seed
        config.database = database
        return config
    }

    @Test(arguments: databases)
    func aShortEconomyKeepsEveryMoneyRule(_ database: EconomyDatabase) async throws {
        let config = Self.config(database)
        let report = try await Economy.run(config)
        #expect(report.violations.isEmpty, "seed \(config.seed): \(report.text)")
        #expect(report.payments == config.payments)
        // Every cheat was tried, and every try was caught and pinned on its signer (or, for
        // tampering and replays, refused with nothing moved).
        for kind in ["double-spend-payee-could-know", "double-spend-payee-could-not-know", "replay-offline", "replay-online"] {
            let c = report.cheats[kind] ?? CheatCount()
            #expect(c.attempted > 0, "\(kind) never happened: \(report.text)")
            #expect(c.detected == c.attempted && c.attributed == c.attempted, "\(kind): \(c)")
        }
        let tampers = report.cheats.filter { $0.key.hasPrefix("tamper-") }
        #expect(tampers.count >= 3, "\(report.text)")
        for (kind, c) in tampers { #expect(c.detected == c.attempted && c.attributed == c.attempted, "\(kind): \(c)") }
        // The continuous checks ran, and the end-of-run ones once each.
        for check in ["conservation", "no-honest-account-frozen", "no-honest-wallet-named", "issuer-books-balance"] {
            #expect((report.checks[check] ?? 0) > 10, "\(check) ran \(report.checks[check] ?? 0) times")
        }
        #expect(report.checks["every-account-exact"] == 1)
        #expect(report.checks["every-double-spend-detected-and-attributed"] == 1)
        #expect((report.counters["restores"] ?? 0) > 0 && (report.counters["notes-refreshed"] ?? 0) > 0, "\(report.text)")
        #expect((report.counters["restored-states-already-exchanged"] ?? 0) > 0, "no backup was restored twice: \(report.text)")
        #expect((report.counters["second-payments-refused"] ?? 0) > 0, "no request was paid twice: \(report.text)")
        // Each frame is a code shown and scanned at the till: most payments take one, and the
        // sync's consolidation keeps the 95th percentile at two.
        let measured = report.framesPerPayment.values.reduce(0, +)
        #expect(measured > 0 && measured <= report.payments)
        #expect(report.framesPercentile(0.95) <= 2, "\(report.text)")
    }

    /// A simulator that cannot fail proves nothing: each planted fault must be caught, by the
    /// check it breaks.
    @Test(arguments: EconomySabotage.allCases)
    func aPlantedFaultIsCaught(_ sabotage: EconomySabotage) async throws {
        // A payee that never redeems loses only payments the issuer never hears of: a payer's
        // sync refreshes its change, which records the transfer, and the expiry refund then
        // finds the payee. Whole notes paid without change are the ones nobody reveals; the
        // seed is one whose run pays the victim that way.
        var config = Self.config(.sqlite, seed: 4)
        config.payments = 300
        config.wallets = 12
        config.days = 1
        config.cheatRate = 0
        config.sabotage = sabotage
        let report = try await Economy.run(config)
        switch sabotage {
        case .miscountFunding:
            #expect(report.violations.contains { $0.contains("conservation:") && $0.contains("difference -1") }, "\(report.text)")
        case .payeeNeverRedeems:
            #expect(report.violations.contains { $0.contains("expected") && $0.contains("difference -") }, "\(report.text)")
        }
    }

    @Test func theCheckerCatchesCorruptedTallies() {
        #expect(InvariantChecker.conservation(userBalances: 900, float: 100, funded: 1_000).isEmpty)
        #expect(InvariantChecker.conservation(userBalances: 900, float: 100, funded: 1_001).count == 1)
        let tallies: [Int64: AccountTally] = [
            1: AccountTally(funded: 500, received: 30, sent: 10), 2: AccountTally(funded: 500, received: 10, sent: 30),
        ]
        #expect(InvariantChecker.accounts(balances: [1: 520, 2: 480], tallies: tallies).isEmpty)
        #expect(InvariantChecker.accounts(balances: [1: 510, 2: 490], tallies: tallies).count == 2)
        let honestKey: [UInt8] = [1, 2, 3], cheaterKey: [UInt8] = [9, 9, 9]
        let keys = [honestKey: Int64(1), cheaterKey: Int64(2)]
        let named = FraudCaseRow(id: 1, state: [7], cheaterKey: honestKey, cheaterAccount: 1, status: "open")
        let fair = FraudCaseRow(id: 2, state: [8], cheaterKey: cheaterKey, cheaterAccount: 2, status: "recovered")
        #expect(InvariantChecker.attribution([fair], keyAccounts: keys, cheaters: [2], restorers: []).isEmpty)
        #expect(InvariantChecker.attribution([named, fair], keyAccounts: keys, cheaters: [2], restorers: []).count == 1)
        #expect(InvariantChecker.frozen([1, 2], cheaters: [2]) == ["honest account 1 is frozen"])
        let spend = DoubleSpendRecord(kind: .payeeCouldNotKnow, state: [8], signer: cheaterKey, account: 2)
        #expect(InvariantChecker.detected([spend], cases: [[8]: [fair]]).isEmpty)
        #expect(InvariantChecker.detected([spend], cases: [:]).count == 1)
        #expect(
            InvariantChecker.detected(
                [spend], cases: [[8]: [FraudCaseRow(id: 3, state: [8], cheaterKey: honestKey, cheaterAccount: 1, status: "open")]]
            ).count == 1)
        let twice = DoubleSpendRecord(kind: .secondRestore, state: [8], signer: cheaterKey, account: 2)
        #expect(
            InvariantChecker.detected(
                [twice],
                cases: [
                    [8]: [FraudCaseRow(id: 4, state: [8], cheaterKey: cheaterKey, cheaterAccount: 2, status: "restore_conflict")]
                ]
            ).count == 1)
    }
}
