import Foundation
import OfflineNotes
import Testing
import WalletAppModels
import WalletCore
import WalletTestSupport

/// Expiry warnings on a test clock: 24 h and 1 h before the first held note expires, with the
/// value and the time, each once (also after a restart).
@MainActor
@Suite struct ExpiryAlertTests {
    static let eur = Currency("EUR")!

    static func app(_ clock: TestClock, _ notifier: RecordingNotifier, _ settings: InMemorySettingsStore) -> AppModel {
        AppModel(
            settings: settings, connectivity: ManualConnectivity(.offline), scheduler: RecordingScheduler(), notifier: notifier,
            lock: LockModel(gate: NoBiometrics(), settings: settings), clock: clock)
    }

    @Test func warnsOnce24HoursAndOnce1HourBeforeTheFirstNoteExpires() async throws {
        let pair = try WalletPair(funds: 0)
        // 30.00 expiring first, 20.00 half an hour later, 50.00 two days later.
        let start = UInt64(Date().timeIntervalSince1970)
        let lifetime: UInt64 = 30 * 86_400
        let first = try pair.issuer.issue(3_000, to: pair.payer.publicKey, now: start, lifetime: lifetime)
        let expiry = first.note.expiresAt
        _ = try pair.payer.deposit([
            first, try pair.issuer.issue(2_000, to: pair.payer.publicKey, now: start, lifetime: lifetime + 1_800),
            try pair.issuer.issue(5_000, to: pair.payer.publicKey, now: start, lifetime: lifetime + 2 * 86_400),
        ])

        let clock = TestClock(expiry - 86_400 - 60)
        let notifier = RecordingNotifier()
        let settings = InMemorySettingsStore()
        let app = Self.app(clock, notifier, settings)
        app.start(wallet: AsyncWallet(pair.payer), session: nil)
        await app.checkExpiry()
        #expect(notifier.posted.isEmpty, "more than 24 h before: nothing")

        clock.advance(60 + 1_800)
        await app.checkExpiry()
        let day = WalletAlert.expiring(amount: 5_000, currency: Self.eur, expiresAt: expiry)
        #expect(notifier.posted == [day], "within 24 h: the value of both notes expiring in that window, and when the first goes")
        clock.advance(3_600)
        await app.checkExpiry()
        #expect(notifier.posted == [day], "not again")

        clock.advance(77_400)
        await app.checkExpiry()
        let hour = WalletAlert.expiring(amount: 3_000, currency: Self.eur, expiresAt: expiry)
        #expect(notifier.posted == [day, hour], "1 h before: only the note expiring within the hour")
        await app.checkExpiry()
        #expect(app.alerts == [day, hour])

        // A restarted app (same settings) does not repeat either.
        let restarted = Self.app(clock, notifier, settings)
        restarted.start(wallet: AsyncWallet(pair.payer), session: nil)
        await restarted.checkExpiry()
        #expect(notifier.posted == [day, hour])

        // Once the first note expired, the next one's warning comes in its turn: its 1 h
        // warning (it expires half an hour later), never the old ones again.
        clock.advance(3_600 + 1)
        await restarted.checkExpiry()
        #expect(notifier.posted.count == 3)
        #expect(notifier.posted.last == .expiring(amount: 2_000, currency: Self.eur, expiresAt: expiry + 1_800))
    }

    @Test func anEmptyWalletOrNotesFarFromExpiryWarnNothing() async throws {
        let pair = try WalletPair(funds: 0)
        let clock = TestClock(UInt64(Date().timeIntervalSince1970))
        let notifier = RecordingNotifier()
        let app = Self.app(clock, notifier, InMemorySettingsStore())
        app.start(wallet: AsyncWallet(pair.payer), session: nil)
        await app.checkExpiry()
        _ = try pair.payer.deposit([try pair.issuer.issue(1_000, to: pair.payer.publicKey, now: clock.now())])
        await app.checkExpiry()
        #expect(notifier.posted.isEmpty)
        let outlook = try pair.payer.expiryOutlook(now: clock.now(), by: clock.now() + 86_400)
        #expect(outlook.value == 0 && outlook.soonest != nil)
    }
}
