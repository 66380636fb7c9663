import Foundation

/// How often one kind of cheat was tried, and how often the system caught it and named the
/// right signer (or, for tampering and replays, refused it without moving any value).
public struct CheatCount: Sendable, Codable, Equatable {
    public var attempted = 0
    public var detected = 0
    public var attributed = 0
    public init() {}
}

/// What a run did and found.
public struct EconomyReport: Sendable, Codable {
    public var seed: UInt64 = 0
    public var database = ""
    public var wallets = 0
    public var cheaterWallets = 0
    public var simulatedDays = 0.0
    /// Honest offline payments completed (accepted by their payee).
    public var payments = 0
    public var paymentsTarget = 0
    public var wallSeconds = 0.0
    /// Honest payments per second of wall time, everything included (syncs, checks, cheats).
    public var paymentsPerSecond = 0.0
    public var peakRSSBytes: Int64 = 0
    /// Times each invariant was checked.
    public var checks: [String: Int] = [:]
    /// Each cheat: attempted, detected (or refused), attributed to its signer.
    public var cheats: [String: CheatCount] = [:]
    /// Everything else the economy did (syncs, purchases, refreshes, refunds, restores…).
    public var counters: [String: Int] = [:]
    /// Broken invariants; empty when every rule held.
    public var violations: [String] = []
    /// Where the run stopped early, if it did (`stopAt` reached).
    public var stoppedEarly = false

    /// How many QR frames each honest offline payment's bundle takes at the default frame size
    /// (`QRFrames.encode`): frame count → payments. Each frame is one code a person shows and
    /// scans at the till.
    public var framesPerPayment: [Int: Int] = [:]

    public init() {}

    /// The smallest frame count that at least `fraction` of the payments need no more than
    /// (0 when there were none): `framesPercentile(0.95)` is the p95.
    public func framesPercentile(_ fraction: Double) -> Int {
        let total = framesPerPayment.values.reduce(0, +)
        guard total > 0 else { return 0 }
        let needed = Int((Double(total) * fraction).rounded(.up))
        var seen = 0
        for frames in framesPerPayment.keys.sorted() {
            seen += framesPerPayment[frames] ?? 0
            if seen >= needed { return frames }
        }
        return framesPerPayment.keys.max() ?? 0
    }

    /// A human-readable summary.
    public var text: String {
        var lines = [
            "seed \(seed) · \(database) · \(wallets) wallets (\(cheaterWallets) cheating) · \(String(format: "%.1f", simulatedDays)) simulated days",
            "payments: \(payments) of \(paymentsTarget)\(stoppedEarly ? " (stopped early)" : "") in \(String(format: "%.1f", wallSeconds)) s = \(String(format: "%.1f", paymentsPerSecond)) payments/s",
            "peak RSS: \(peakRSSBytes / 1_048_576) MiB",
            "QR frames per payment: p50 \(framesPercentile(0.5)), p95 \(framesPercentile(0.95)), max \(framesPercentile(1))"
                + " (" + framesPerPayment.keys.sorted().map { "\($0): \(framesPerPayment[$0] ?? 0)" }.joined(separator: ", ")
                + ")",
            "invariant checks:",
        ]
        lines += checks.keys.sorted().map { "  \($0): \(checks[$0]!)" }
        lines.append("cheats (attempted / detected or refused / attributed):")
        lines += cheats.keys.sorted().map {
            "  \($0): \(cheats[$0]!.attempted) / \(cheats[$0]!.detected) / \(cheats[$0]!.attributed)"
        }
        lines.append("economy:")
        lines += counters.keys.sorted().map { "  \($0): \(counters[$0]!)" }
        lines.append(violations.isEmpty ? "violations: none" : "VIOLATIONS (\(violations.count)):")
        lines += violations.prefix(50).map { "  \($0)" }
        return lines.joined(separator: "\n")
    }

    /// Peak resident memory of this process (VmHWM), 0 where /proc is missing.
    public static func peakRSS() -> Int64 {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kb = line.split(separator: " ").compactMap { Int64($0) }.first ?? 0
            return kb * 1024
        }
        return 0
    }
}
