import Foundation
import IssuerCore
import OfflineNotes
import QRPayload
import SQLStore
import Synchronization
import WalletCore

/// The simulated time every wallet and the issuer read (both take their clock as input).
final class SimClock: Sendable {
    private let time: Mutex<UInt64>
    init(_ start: UInt64) { time = Mutex(start) }
    var now: UInt64 { time.withLock { $0 } }
    func advance(to t: UInt64) { time.withLock { $0 = max($0, t) } }
}

/// SplitMix64: every decision the simulator makes comes from it, so a seed replays the same
/// economy (who pays whom, how much, which cheat, when). Signatures and note ids stay random
/// (ECDSA nonces, the issuer's ids): the bytes differ between runs, the story does not.
struct SimRandom: RandomNumberGenerator, Sendable {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func chance(_ p: Double) -> Bool { unit() < p }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
}

/// The request nonces and backup salts the wallets draw, from the seed too.
final class SharedRandom: Sendable {
    private let generator: Mutex<SimRandom>
    init(seed: UInt64) { generator = Mutex(SimRandom(seed: seed ^ 0xA5A5_5A5A_0F0F_F0F0)) }
    func bytes(_ count: Int) -> [UInt8] {
        generator.withLock { g in (0..<count).map { _ in UInt8(truncatingIfNeeded: g.next()) } }
    }
}

/// A simulation failure that is not an invariant (the simulator could not set something up).
public struct EconomyError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// One account and its wallet device(s) in the economy.
final class Member {
    enum Role: String { case honest, cheater, restorer, abuser }
    let index: Int
    let account: Int64
    /// The device in use; after a restore, the restored wallet.
    var directory: String
    /// Every device key the account registered, oldest first.
    var keys: [[UInt8]]
    var role: Role
    var lastSync: UInt64
    var dormantUntil: UInt64 = 0
    var dormant = false
    var reportedProofs = 0
    var oldDevices: [String] = []
    var restores = 0
    /// Sabotage: this payee's sync marks what it received settled without redeeming it.
    var neverRedeems = false

    init(index: Int, account: Int64, directory: String, key: [UInt8], role: Role, now: UInt64) {
        self.index = index
        self.account = account
        self.directory = directory
        keys = [key]
        self.role = role
        lastSync = now
    }

    var cheats: Bool { role == .cheater || role == .abuser }
}

/// The adversarial economy: the real wallet engine (`WalletCore`, one SQLite wallet per device)
/// and the real issuer (`IssuerCore` on SQLite or PostgreSQL), in one process on a simulated
/// clock, through honest payments, cheats, expiry, refresh, restores and random syncs, with the
/// money rules checked as it goes (`InvariantChecker`). Run it with `Economy.run`.
public final class Economy {
    static let start: UInt64 = 1_900_000_000
    static let passphrase = "economy backup passphrase"

    let config: EconomyConfig
    var rng: SimRandom
    let clock: SimClock
    let env: WalletEnvironment
    let root: String
    let issuer: Issuer
    let issuingKey: SoftwareSigner
    let database: any SQLDatabase
    var members: [Member] = []
    var tallies: [Int64: AccountTally] = [:]
    var funded: Int64 = 0
    var report = EconomyReport()
    var doubleSpends: [DoubleSpendRecord] = []
    var keyAccounts: [[UInt8]: Int64] = [:]
    var cheaterAccounts = Set<Int64>()
    var restorerAccounts = Set<Int64>()
    var seenCases: [FraudCaseRow] = []
    var lastCaseID: Int64 = 0
    var sequence = 0
    var checksRun = 0
    // Open wallets, least recently used evicted (thousands of wallets, each a SQLite pool).
    var open: [String: (wallet: Wallet, used: Int)] = [:]
    var useCounter = 0

    init(config: EconomyConfig, root: String, database: any SQLDatabase) async throws {
        self.config = config
        self.root = root
        self.database = database
        rng = SimRandom(seed: config.seed)
        let clock = SimClock(Self.start)
        self.clock = clock
        let random = SharedRandom(seed: config.seed)
        env = WalletEnvironment(now: { clock.now }, randomBytes: { random.bytes($0) })
        guard let eur = Currency("EUR") else { throw EconomyError("EUR is not a currency") }
        issuingKey = SoftwareSigner()
        let keyring = IssuerKeyring(
            authority: SoftwareSigner(),
            issuing: [.init(signer: issuingKey, validFrom: Self.start - 86_400, validUntil: Self.start + 3_650 * 86_400)])
        let issuerConfig = IssuerConfig(
            currency: eur, maxOfflineHolding: 500_000, maxHops: config.maxHops, noteLifetime: config.noteLifetime,
            redemptionGrace: config.redemptionGrace, policy: .creditLaterReceiver, devFunding: true, passwordCost: .testing)
        issuer = try await Issuer.open(
            database: database, keyring: keyring, config: issuerConfig, challengeSecret: Array(repeating: 5, count: 32),
            clock: { clock.now })
    }

    /// Runs one economy and returns what it did and found. `stopAt` (wall-clock deadline) ends
    /// the payments early; the final settlement and checks still run.
    public static func run(_ config: EconomyConfig, stopAt: Date? = nil) async throws -> EconomyReport {
        let base = config.directory ?? (FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory())
        let root = (base as NSString).appendingPathComponent("economy-\(config.seed)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let database: any SQLDatabase
        var dropSchema: (() async -> Void)?
        switch config.database {
        case .sqlite:
            database = try SQLiteStore(path: root + "/issuer.sqlite")
        case .postgres(let url):
            let schema = "economy_\(config.seed)_\(UInt32.random(in: 0...UInt32.max))"
            let admin = try PostgresStore(url: url, maxConnections: 1)
            try await admin.transaction { try await $0.execute("CREATE SCHEMA \(schema)") }
            await admin.close()
            database = try PostgresStore(url: url + (url.contains("?") ? "&" : "?") + "search_path=\(schema)", maxConnections: 8)
            config.progress?("postgres schema \(schema)")
            dropSchema = {
                guard let admin = try? PostgresStore(url: url, maxConnections: 1) else { return }
                try? await admin.transaction { try await $0.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
                await admin.close()
            }
        }
        let economy = try await Economy(config: config, root: root, database: database)
        let began = Date()
        do {
            try await economy.simulate(stopAt: stopAt)
        } catch {
            economy.report.violations.append("the simulation stopped on an error: \(error)")
        }
        economy.open.removeAll()
        var report = economy.report
        report.wallSeconds = Date().timeIntervalSince(began)
        report.paymentsPerSecond = report.wallSeconds > 0 ? Double(report.payments) / report.wallSeconds : 0
        report.peakRSSBytes = EconomyReport.peakRSS()
        await database.close()
        await dropSchema?()
        return report
    }

    // MARK: Bookkeeping

    func count(_ name: String, _ n: Int = 1) { report.counters[name, default: 0] += n }
    func violation(_ text: String) {
        report.violations.append("[t+\(String(format: "%.2f", Double(clock.now - Self.start) / 86_400))d] " + text)
    }
    func nextKey() -> String {
        sequence += 1
        return "economy-\(sequence)"
    }

    /// The member's current device, opened on demand.
    func wallet(_ m: Member) throws -> Wallet { try wallet(at: m.directory) }

    func wallet(at directory: String) throws -> Wallet {
        useCounter += 1
        if let hit = open[directory] {
            open[directory] = (hit.wallet, useCounter)
            return hit.wallet
        }
        let wallet = try Wallet.open(directory: directory, environment: env)
        keepOpen(wallet, at: directory)
        return wallet
    }

    /// Keeps `wallet` open, closing the least recently used one beyond `openWallets`.
    func keepOpen(_ wallet: Wallet, at directory: String) {
        useCounter += 1
        while open.count >= config.openWallets, let oldest = open.min(by: { $0.value.used < $1.value.used })?.key {
            open[oldest] = nil
        }
        open[directory] = (wallet, useCounter)
    }

    func fund(_ m: Member, _ amount: UInt64) async throws {
        _ = try await issuer.fund(account: m.account, amount: amount)
        funded += Int64(amount)
        tallies[m.account, default: AccountTally()].funded += Int64(amount)
        count("money-paid-in", Int(amount))
    }

    func registerKey(_ wallet: Wallet, account: Int64) async throws {
        let challenge = issuer.keyChallenge(account: account)
        let signature = try wallet.identity.signer.sign(KeyRegistration.message(challenge: challenge, account: account))
        try await issuer.registerWalletKey(account: account, key: wallet.publicKey, challenge: challenge, signature: signature)
        keyAccounts[wallet.publicKey.bytes] = account
    }

    // MARK: Setup

    func setUp() async throws {
        let cheaters = Int((Double(config.wallets) * config.cheaters).rounded())
        for i in 0..<config.wallets {
            let account = try await issuer.register(email: "member\(i)@economy.example.com", password: "correct horse battery")
            let directory = root + "/w\(i)"
            let wallet = try Wallet.create(directory: directory, keyCost: .testing, environment: env)
            try wallet.installTrust(
                authority: issuer.keyring.authority.publicKey, keyset: issuer.keyset.encoded, limits: issuer.limits.encoded)
            try await registerKey(wallet, account: account)
            // The last cheaters abuse restores; the others double spend, tamper and replay.
            let role: Member.Role =
                i >= config.wallets - cheaters
                ? (i >= config.wallets - max(1, cheaters / 4) && cheaters >= 2 ? .abuser : .cheater) : .honest
            let m = Member(
                index: i, account: account, directory: directory, key: wallet.publicKey.bytes, role: role, now: clock.now)
            if m.cheats { cheaterAccounts.insert(account) }
            members.append(m)
            tallies[account] = AccountTally()
            keepOpen(wallet, at: directory)
            try await fund(m, 50_000)
            try await recharge(m, target: 20_000)
        }
        if config.sabotage == .payeeNeverRedeems, let victim = members.first(where: { $0.role == .honest }) {
            victim.neverRedeems = true
        }
        if config.sabotage == .miscountFunding { funded += 1 }
        report.seed = config.seed
        report.database = config.database.name
        report.wallets = config.wallets
        report.cheaterWallets = cheaters
        report.simulatedDays = config.days
        report.paymentsTarget = config.payments
    }

    // MARK: The run

    func simulate(stopAt: Date?) async throws {
        try await setUp()
        let duration = UInt64(config.days * 86_400)
        var nextHour = Self.start + 3_600
        var nextCheck = Self.start + config.checkInterval
        var attempts = 0
        var lastProgress = 0
        while report.payments < config.payments {
            if let stopAt, Date() >= stopAt {
                report.stoppedEarly = true
                break
            }
            if report.payments % 1_000 == 0, let floor = config.minAvailableMemory, let available = Self.availableMemory(),
                available < floor
            {
                // The wallets and the issuer live in memory (/dev/shm): stop before the machine runs out.
                config.progress?("stopping the payments: only \(available / 1_048_576) MiB of memory left")
                report.stoppedEarly = true
                break
            }
            let t = Self.start + UInt64(Double(duration) * Double(report.payments + 1) / Double(max(config.payments, 1)))
            while nextHour <= t || nextCheck <= t {
                if nextHour <= nextCheck {
                    clock.advance(to: nextHour)
                    try await hourly()
                    nextHour += 3_600
                } else {
                    clock.advance(to: nextCheck)
                    try await checkContinuously()
                    nextCheck += config.checkInterval
                }
            }
            clock.advance(to: t)
            attempts += 1
            guard attempts <= config.payments * 5 + 1_000 else {
                violation("the economy stalled: \(attempts) attempts for \(report.payments) payments")
                break
            }
            try await step()
            if report.payments - lastProgress >= config.progressEvery {
                lastProgress = report.payments
                config.progress?(progressLine())
            }
        }
        try await settleEverything()
    }

    /// MemAvailable from /proc/meminfo, nil where it is missing.
    static func availableMemory() -> Int64? {
        guard let info = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return nil }
        for line in info.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            return line.split(separator: " ").compactMap { Int64($0) }.first.map { $0 * 1024 }
        }
        return nil
    }

    func progressLine() -> String {
        let day = Double(clock.now - Self.start) / 86_400
        let cheats = report.cheats.values.reduce(0) { $0 + $1.attempted }
        return
            "day \(String(format: "%.2f", day)): \(report.payments) payments, \(cheats) cheats, \(report.counters["syncs"] ?? 0) syncs, \(checksRun) checks, \(report.violations.count) violations, RSS \(EconomyReport.peakRSS() / 1_048_576) MiB"
    }

    /// Members free to pay and be paid now.
    func active(excluding: [Member] = [], where condition: (Member) -> Bool = { _ in true }) -> Member? {
        for _ in 0..<64 {
            let m = members[rng.below(members.count)]
            if !m.dormant, !excluding.contains(where: { $0 === m }), condition(m) { return m }
        }
        return nil
    }

    func amount() -> UInt64 {
        let u = rng.unit()
        return 50 + UInt64(u * u * 2_950)
    }

    /// One event: mostly an honest payment; now and then a cheat wrapped around one.
    func step() async throws {
        let r = rng.unit()
        let anyCheater = !cheaterAccounts.isEmpty
        let k = config.cheatRate
        if anyCheater, r < 0.004 * k {
            try await doubleSpend(couldKnow: rng.chance(0.5))
        } else if anyCheater, r < 0.006 * k {
            try await tamper()
        } else if r < 0.008 * k {
            try await replay()
        } else {
            guard let p = active(), let q = active(excluding: [p]) else { return }
            _ = try await pay(p, q, amount(), loseReceipt: rng.chance(0.01))
        }
    }

    /// Runs the issuer's expiry sweep until it has nothing left (it works in batches of 1,000).
    func sweepAllExpired() async throws {
        var swept = 0
        while true {
            let n = try await issuer.sweepExpired()
            swept += n
            if n < 1_000 { break }
        }
        count("notes-swept-after-grace", swept)
    }

    /// Every simulated hour: the issuer's expiry sweep, random syncs (and the ones a wallet
    /// must not put off past the redemption grace), wallets going quiet and coming back, restores.
    func hourly() async throws {
        try await sweepAllExpired()
        let now = clock.now
        let mustSyncAfter = config.redemptionGrace * 3 / 4
        for m in members {
            if m.dormant {
                guard now >= m.dormantUntil else { continue }
                m.dormant = false
                count("wallets-woke")
                try await sync(m)
                continue
            }
            if now - m.lastSync >= mustSyncAfter || rng.chance(1.0 / 12) {
                try await sync(m)
            } else if m.role == .honest, m.restores == 0, rng.chance(0.0005) {
                // Quiet for a while: its own notes expire and come back to its account.
                try await sync(m)
                m.dormant = true
                m.dormantUntil = now + config.noteLifetime + config.redemptionGrace + 3_600 * UInt64(1 + rng.below(24))
                count("wallets-dormant")
            }
        }
        if rng.chance(0.08), let m = active(where: { $0.role == .honest && $0.restores == 0 }) {
            try await restoreOnce(m)
        }
        // The rarer accidents happen at least once a run, then by chance.
        if report.counters["second-payments-refused"] == nil || rng.chance(0.05) { try await twoPayersPayOneRequest() }
        if report.counters["restores-of-one-backup-twice"] == nil || rng.chance(0.02),
            let m = active(where: { $0.role == .honest && $0.restores == 0 && !$0.neverRedeems })
        {
            m.role = .restorer
            restorerAccounts.insert(m.account)
            try await restoreSameBackupTwice(m)
        }
        if rng.chance(0.05), let m = active(where: { $0.role == .abuser && $0.restores == 0 }) {
            try await restoreTwice(m)
        }
    }

}

extension Error {
    /// The stable code of a wallet or issuer error, for counters.
    var code: String {
        switch self {
        case let e as WalletError: e.code
        case let e as IssuerError: e.code
        case let e as VerificationError: e.code
        default: "\(type(of: self))"
        }
    }
}
