import Foundation
import Synchronization

/// A named place between two durable steps of a value-moving flow, where the crash sweep
/// (`scripts/crash-sweep`, docs/reliability.md §2) kills the process with a real SIGKILL.
///
/// The raw value is the name the sweep arms (`OW_CRASH_AT=wallet.pay.committed`). Each point
/// sits right after a commit (or, for `…InTransaction` points, inside a transaction, to show it
/// rolls back): whatever the flow made durable before it must survive, and the flow must finish
/// when it is run again. Wallet points are reached in the `wallet` process, issuer points in
/// `wallet-server`.
public enum CrashPoint: String, CaseIterable, Sendable {
    // MARK: Wallet: pay, receive, confirm
    case walletPayCommitted = "wallet.pay.committed"
    case walletReceiveCommitted = "wallet.receive.committed"
    case walletReceiveProofRecorded = "wallet.receive.proof-recorded"
    case walletConfirmCommitted = "wallet.confirm.committed"
    // MARK: Wallet: purchase
    case walletPurchaseKeySaved = "wallet.purchase.key-saved"
    case walletPurchaseAnswered = "wallet.purchase.answered"
    case walletPurchaseDeposited = "wallet.purchase.deposited"
    // MARK: Wallet: sync
    case walletSyncRestoreAnswered = "wallet.sync.restore-answered"
    case walletSyncRestoreApplied = "wallet.sync.restore-applied"
    case walletSyncAnnounceAnswered = "wallet.sync.announce-answered"
    case walletSyncSettleAnswered = "wallet.sync.settle-answered"
    case walletSyncRedeemAnswered = "wallet.sync.redeem-answered"
    case walletSyncRedeemStored = "wallet.sync.redeem-stored"
    case walletSyncRefreshHeld = "wallet.sync.refresh-held"
    case walletSyncRefreshAnswered = "wallet.sync.refresh-answered"
    case walletSyncRefreshStored = "wallet.sync.refresh-stored"
    case walletSyncFraudReported = "wallet.sync.fraud-reported"
    // MARK: Wallet: restore from a backup
    case walletRestoreSnapshotWritten = "wallet.restore.snapshot-written"
    case walletRestoreKeyCreated = "wallet.restore.key-created"
    case walletRestoreCommitted = "wallet.restore.committed"
    // MARK: Issuer
    case issuerPurchaseCommitted = "issuer.purchase.committed"
    case issuerRedeemInTransaction = "issuer.redeem.in-transaction"
    case issuerRedeemCommitted = "issuer.redeem.committed"
    case issuerAnnounceCommitted = "issuer.announce.committed"
    case issuerFraudInTransaction = "issuer.fraud.in-transaction"
    case issuerFraudCommitted = "issuer.fraud.committed"
    case issuerSweepInTransaction = "issuer.sweep.in-transaction"
    case issuerSweepCommitted = "issuer.sweep.committed"
    case issuerRefreshRedeemed = "issuer.refresh.redeemed"
    case issuerRefreshCommitted = "issuer.refresh.committed"
    case issuerRestoreExchanged = "issuer.restore.exchanged"

    /// Which process reaches it.
    public var side: Side { rawValue.hasPrefix("issuer.") ? .issuer : .wallet }

    /// The process a crash point lives in.
    public enum Side: String, Sendable {
        case wallet
        case issuer
    }

    /// The durable steps it sits between (for `debug crash-points` and docs/reliability.md §2).
    public var between: String {
        switch self {
        case .walletPayCommitted:
            "pay transaction committed (inputs reserved, transfers signed and stored) | bytes handed to the payee"
        case .walletReceiveCommitted: "received states and the signed receipt committed | receipt handed back"
        case .walletReceiveProofRecorded: "fraud proof of an offline double spend committed | refusal reported"
        case .walletConfirmCommitted: "receipt stored, payment completed | confirmation reported"
        case .walletPurchaseKeySaved: "purchase idempotency key saved | purchase request sent"
        case .walletPurchaseAnswered: "issuer answered the purchase (account debited) | notes deposited"
        case .walletPurchaseDeposited: "notes deposited | pending purchase key forgotten"
        case .walletSyncRestoreAnswered: "issuer answered the restore exchange | restored states retired, fresh notes stored"
        case .walletSyncRestoreApplied: "restore exchange applied | rest of the sync"
        case .walletSyncAnnounceAnswered: "issuer recorded an announced transfer | next announcement / settlement"
        case .walletSyncSettleAnswered: "issuer answered the state check of a payment without receipt | payment resolved"
        case .walletSyncRedeemAnswered: "issuer credited a redemption batch | states marked settled"
        case .walletSyncRedeemStored: "states marked settled | rest of the sync"
        case .walletSyncRefreshHeld: "notes held for an online check | refresh request sent"
        case .walletSyncRefreshAnswered: "issuer answered the refresh (old notes taken, fresh ones issued) | exchange stored"
        case .walletSyncRefreshStored: "refresh exchange stored | rest of the sync"
        case .walletSyncFraudReported: "issuer recorded a reported fraud proof | rest of the sync"
        case .walletRestoreSnapshotWritten: "backup's database written into the new directory | new key created"
        case .walletRestoreKeyCreated: "new key created | restored states marked for the online exchange"
        case .walletRestoreCommitted: "restored wallet committed | settings (server) saved"
        case .issuerPurchaseCommitted: "purchase committed (account debited, note issued, idempotent answer stored) | answer sent"
        case .issuerRedeemInTransaction:
            "redemption batch written in its transaction, or built as the one statement of a clean batch (PostgreSQL), not committed | commit"
        case .issuerRedeemCommitted: "redemption batch committed (spends, credits) | answers sent"
        case .issuerAnnounceCommitted: "announced transfer committed | answer sent"
        case .issuerFraudInTransaction: "fraud case inserted, cheater frozen, not committed | commit"
        case .issuerFraudCommitted: "reported fraud proof committed (case opened) | answer sent"
        case .issuerSweepInTransaction: "first expired note refunded inside the sweep transaction | commit"
        case .issuerSweepCommitted: "expiry sweep committed (refunds posted, notes swept) | next housekeeping"
        case .issuerRefreshRedeemed: "refresh: old notes redeemed (committed) | fresh notes purchased"
        case .issuerRefreshCommitted: "refresh: fresh notes purchased (committed) | answer sent"
        case .issuerRestoreExchanged: "restore exchange: one state redeemed and remembered (committed) | next state / answer"
        }
    }
}

/// Arming and reaching crash points. Inert unless the process was started with
/// `OW_CRASH_AT=NAME` (or `NAME#N`: the N-th time the point is reached, counting from 1):
/// then reaching that point SIGKILLs the process — no cleanup, no flush, as a power cut or
/// the OOM killer would. `OW_CRASH_TRACE=FILE` appends the name of every point reached (armed
/// or not) to FILE, one per line, so the sweep can prove each point was exercised.
///
/// The environment is read once; unset, `reach` is one load and one nil check.
public enum CrashPoints {
    /// The variable naming the armed point.
    public static let armVariable = "OW_CRASH_AT"
    /// The variable naming the trace file.
    public static let traceVariable = "OW_CRASH_TRACE"

    /// Called at a crash point: kills the process there if the point is armed.
    @inline(__always)
    public static func reach(_ point: CrashPoint) {
        guard let configuration else { return }
        configuration.reach(point)
    }

    private static let configuration: Configuration? = Configuration(environment: ProcessInfo.processInfo.environment)

    /// Every point, for `wallet debug crash-points` and `wallet-server debug crash-points`: one
    /// line per point ("NAME<TAB>SIDE<TAB>BETWEEN"), or a JSON object with a `points` array.
    public static func listing(json: Bool) -> String {
        let points = CrashPoint.allCases
        guard json else { return points.map { "\($0.rawValue)\t\($0.side.rawValue)\t\($0.between)" }.joined(separator: "\n") }
        let object: [String: Any] = [
            "ok": true, "points": points.map { ["name": $0.rawValue, "side": $0.side.rawValue, "between": $0.between] },
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Parses `NAME` or `NAME#N`; nil when it names no point or N is not a positive count.
    public static func parse(_ text: String) -> (point: CrashPoint, hit: Int)? {
        let parts = text.split(separator: "#", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let point = CrashPoint(rawValue: String(parts[0])) else { return nil }
        guard parts.count == 2 else { return (point, 1) }
        guard let hit = Int(parts[1]), hit > 0 else { return nil }
        return (point, hit)
    }

    final class Configuration: Sendable {
        let armed: CrashPoint?
        let hit: Int
        let trace: String?
        let count = Atomic<Int>(0)

        init?(environment: [String: String]) {
            let armText = environment[CrashPoints.armVariable].flatMap { $0.isEmpty ? nil : $0 }
            let trace = environment[CrashPoints.traceVariable].flatMap { $0.isEmpty ? nil : $0 }
            guard armText != nil || trace != nil else { return nil }
            if let armText {
                guard let (point, hit) = CrashPoints.parse(armText) else {
                    // A typo must not turn the sweep's crash into a silent pass.
                    let names = CrashPoint.allCases.map(\.rawValue).joined(separator: ", ")
                    FileHandle.standardError.write(
                        Data(
                            "\(CrashPoints.armVariable)=\(armText) names no crash point (NAME or NAME#N, N ≥ 1; names: \(names))\n"
                                .utf8))
                    _exit(70)
                }
                armed = point
                self.hit = hit
            } else {
                armed = nil
                hit = 0
            }
            self.trace = trace
        }

        func reach(_ point: CrashPoint) {
            if let trace { Self.append(point.rawValue + "\n", to: trace) }
            guard point == armed else { return }
            let reached = count.add(1, ordering: .sequentiallyConsistent).newValue
            guard reached == hit else { return }
            kill(getpid(), SIGKILL)
        }

        /// One `write` on an O_APPEND descriptor: lines from the wallet and the server
        /// processes sharing one trace file never interleave.
        static func append(_ line: String, to path: String) {
            let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { return }
            defer { close(fd) }
            let bytes = Array(line.utf8)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }
    }
}
