import DevIssuer
import Foundation
import OfflineNotes
import Synchronization
import Testing

@testable import WalletCore

/// Consumes a snapshot stream in its own task and hands the elements out one by one, each wait
/// bounded so a missing emission fails the test instead of hanging it (a hang guard, not a
/// speed check: the bound is generous).
final class SnapshotProbe: Sendable {
    private struct State {
        var items: [WalletSnapshot] = []
        var ended = false
        var error: WalletError?
        var waiter: (id: Int, continuation: CheckedContinuation<Void, Never>)?
        var nextWaiter = 0
    }
    private let state = Mutex(State())
    private let consumer = Mutex<Task<Void, Never>?>(nil)

    init(_ snapshots: WalletSnapshots) {
        let task = Task { [self] in
            var iterator = snapshots.makeAsyncIterator()
            do throws(WalletError) {
                // `next()` throws `WalletError` itself: the error type survives the stream.
                while let snapshot = try await iterator.next() {
                    wake { $0.items.append(snapshot) }
                }
            } catch {
                wake { $0.error = error }
            }
            wake { $0.ended = true }
        }
        consumer.withLock { $0 = task }
    }

    private func wake(_ change: (inout State) -> Void) {
        let waiter = state.withLock { s in
            change(&s)
            defer { s.waiter = nil }
            return s.waiter?.continuation
        }
        waiter?.resume()
    }

    /// The next snapshot; records a failure and returns nil if none comes within `seconds`.
    func next(within seconds: Double = 20, sourceLocation: SourceLocation = #_sourceLocation) async -> WalletSnapshot? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            if let item = state.withLock({ s in s.items.isEmpty ? nil : s.items.removeFirst() }) { return item }
            if state.withLock({ $0.ended }) || ContinuousClock.now >= deadline {
                Issue.record(
                    "no snapshot within \(seconds)s (ended: \(state.withLock { $0.ended }))", sourceLocation: sourceLocation)
                return nil
            }
            await waitForChange(until: deadline)
        }
    }

    /// Suspends until the consumer appends, ends, or `deadline` passes.
    private func waitForChange(until deadline: ContinuousClock.Instant) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let id: Int? = state.withLock { s in
                guard s.items.isEmpty, !s.ended else { return nil }
                s.nextWaiter += 1
                s.waiter = (s.nextWaiter, c)
                return s.nextWaiter
            }
            guard let id else { return c.resume() }
            Task { [self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                let late = state.withLock { s -> CheckedContinuation<Void, Never>? in
                    guard let w = s.waiter, w.id == id else { return nil }
                    s.waiter = nil
                    return w.continuation
                }
                late?.resume()
            }
        }
    }

    /// Waits (bounded) until the consumer's loop has ended; true if it did.
    func ended(within seconds: Double = 20) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !state.withLock({ $0.ended }) {
            if ContinuousClock.now >= deadline { return false }
            await waitForChange(until: deadline)
            state.withLock { $0.items.removeAll() }
        }
        return true
    }

    /// Snapshots received and not yet taken.
    var buffered: [WalletSnapshot] { state.withLock { $0.items } }
    var error: WalletError? { state.withLock { $0.error } }

    func cancel() { consumer.withLock { $0?.cancel() } }
}

@Suite struct ObservationTests {
    @Test func streamFollowsDepositPaymentReceiptAndIncomingPayment() async throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice")
        let bob = try h.wallet("bob")
        let aliceSeen = SnapshotProbe(alice.snapshots())
        let bobSeen = SnapshotProbe(bob.snapshots())
        defer {
            aliceSeen.cancel()
            bobSeen.cancel()
        }

        let initial = try #require(await aliceSeen.next())
        #expect(initial.balance.total == 0)
        #expect(initial.recent.isEmpty && initial.pending.isEmpty && initial.lastChange == nil)
        #expect(initial.riskBudget == 10_000_000 && initial.riskBudgetLeft == 10_000_000)
        #expect(try #require(await bobSeen.next()).balance.total == 0)

        try h.fund(alice, [10_000])
        let funded = try #require(await aliceSeen.next())
        #expect(funded.balance.spendable == 10_000)
        #expect(funded.recent.map(\.direction) == [.purchased])
        #expect(funded.lastChange == WalletHarness.start)
        #expect(funded.riskBudgetLeft == 10_000_000 - 10_000)

        let request = try bob.createRequest(amount: 3_000, payeeName: "Bob")
        let sent = try alice.pay(request)
        let paid = try #require(await aliceSeen.next())
        #expect(paid.balance.reserved == 3_000)
        #expect(paid.balance.spendable == 7_000)
        #expect(paid.pending.map(\.id) == [sent.id])
        #expect(paid.recent.first?.status == .pending)

        let got = try bob.receive(sent.bundle, for: request.nonce)
        let incoming = try #require(await bobSeen.next())
        #expect(incoming.balance.spendable == 3_000)
        #expect(incoming.balance.unsettled == 3_000)
        #expect(incoming.recent.map(\.direction) == [.received])

        try alice.confirm(receipt: got.receipt.encoded)
        let receipted = try #require(await aliceSeen.next())
        #expect(receipted.balance.reserved == 0)
        #expect(receipted.balance.spendable == 7_000)
        #expect(receipted.pending.isEmpty)
        #expect(receipted.recent.first?.status == .completed)
        #expect(receipted == (try alice.snapshot()))
    }

    /// The payee's screen holds one instance; the nearby receiver (or sync) opened another.
    @Test func writesThroughAnotherInstanceOnTheSameFileAreObserved() async throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [10_000])
        let bobScreen = try h.wallet("bob")
        let bobSeen = SnapshotProbe(bobScreen.snapshots(recent: 5))
        defer { bobSeen.cancel() }
        #expect(try #require(await bobSeen.next()).balance.total == 0)

        let bobReceiver = try h.reopen("bob")
        let request = try bobReceiver.createRequest(amount: 2_500)
        let sent = try alice.pay(request, method: .bluetooth)
        _ = try bobReceiver.receive(sent.bundle, for: request.nonce, method: .bluetooth)
        let incoming = try #require(await bobSeen.next())
        #expect(incoming.balance.spendable == 2_500)
        #expect(incoming.recent.map(\.method) == ["bluetooth"])

        // The same through a path spelled differently.
        let bobViaDots = try Wallet.open(directory: h.root + "/./bob/../bob", environment: h.environment())
        try h.fund(bobViaDots, [1_000])
        #expect(try #require(await bobSeen.next()).balance.spendable == 3_500)
    }

    /// Writes through this instance (seen by GRDB) and another (forwarded) interleave: every
    /// snapshot is at least as new as the one before, and the last state always arrives.
    @Test func interleavedWritersNeverMakeTheStreamGoBack() async throws {
        let h = try WalletHarness()
        let screen = try h.wallet("bob")
        let other = try h.reopen("bob")
        let seen = SnapshotProbe(screen.snapshots())
        defer { seen.cancel() }
        #expect(try #require(await seen.next()).balance.total == 0)

        let writes = Task.detached {
            for i in 1...20 { try h.fund(i.isMultiple(of: 2) ? screen : other, [UInt64(i)]) }
        }
        try await writes.value
        var spendable: UInt64 = 0
        while spendable < 210 {
            let snapshot = try #require(await seen.next())
            #expect(snapshot.balance.spendable > spendable)
            spendable = snapshot.balance.spendable
        }
        #expect(spendable == 210)
    }

    @Test func identicalStatesAreNotEmittedAgain() async throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [1_000])
        let seen = SnapshotProbe(alice.snapshots())
        defer { seen.cancel() }
        let first = try #require(await seen.next())

        // Commits to the observed tables that change nothing a snapshot shows: the same trust
        // again (rewrites `setting`), the same notes again (a no-op deposit), and a wake-up.
        try alice.installTrust(
            authority: h.issuer.authority.publicKey, keyset: h.issuer.keyset.encoded, limits: h.issuer.limits.encoded)
        let chain = try h.issuer.issue(500, to: alice.publicKey, now: h.clock.now)
        alice.refreshSnapshots()
        // Then a real change: the next element must be it, not a repeat of `first`.
        try alice.deposit([chain])
        try alice.deposit([chain])
        let next = try #require(await seen.next())
        #expect(next != first)
        #expect(next.balance.spendable == 1_500)
        #expect(seen.buffered.isEmpty)
    }

    @Test func cancellingTheConsumerEndsTheObservation() async throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice")
        let seen = SnapshotProbe(alice.snapshots())
        _ = try #require(await seen.next())
        #expect(WalletChangeHub.listenerCount(path: alice.databasePath) == 1)

        seen.cancel()
        #expect(await seen.ended())
        #expect(seen.error == nil)
        #expect(WalletChangeHub.listenerCount(path: alice.databasePath) == 0)
        try h.fund(alice, [100])  // no one listening: nothing to deliver, nothing breaks
    }

    @Test func leavingTheLoopEndsTheObservation() async throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice")
        for try await snapshot in alice.snapshots() {
            #expect(snapshot.balance.total == 0)
            break
        }
        // The iterator is gone: its stream terminated and unregistered (bounded wait).
        let deadline = ContinuousClock.now + .seconds(20)
        while WalletChangeHub.listenerCount(path: alice.databasePath) != 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(WalletChangeHub.listenerCount(path: alice.databasePath) == 0)
    }

    /// Before `installTrust` there is no currency: the first snapshot follows the install.
    @Test func anUnconfiguredWalletEmitsOnceTrustIsInstalled() async throws {
        let h = try WalletHarness()
        let fresh = try Wallet.create(directory: h.path("fresh"), keyCost: .testing, environment: h.environment())
        let seen = SnapshotProbe(fresh.snapshots())
        defer { seen.cancel() }
        #expect(throws: WalletError.notConfigured) { try fresh.snapshot() }
        try fresh.installTrust(
            authority: h.issuer.authority.publicKey, keyset: h.issuer.keyset.encoded, limits: h.issuer.limits.encoded)
        let first = try #require(await seen.next())
        #expect(first.balance.currency == h.eur)
        #expect(first.balance.total == 0)
    }

    /// Time moves notes between balance lines without a write; `refreshSnapshots` picks it up.
    @Test func refreshShowsChangesThatNoWriteMade() async throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [1_000])
        let seen = SnapshotProbe(alice.snapshots())
        defer { seen.cancel() }
        #expect(try #require(await seen.next()).balance.spendable == 1_000)

        h.clock.now += 400 * 24 * 3600
        alice.refreshSnapshots()
        let later = try #require(await seen.next())
        #expect(later.balance.spendable == 0)
        #expect(later.balance.expired == 1_000)
    }

    @Test func recentIsBoundedAndNewestFirst() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [100])
        try h.fund(alice, [200])
        try h.fund(alice, [300])
        #expect(try alice.snapshot(recent: 2).recent.map(\.amount) == [300, 200])
        #expect(try alice.snapshot(recent: -1).recent.isEmpty)
        #expect(try alice.snapshot(recent: 5).recent.count == 3)
    }
}

/// Called from inside engine work: whether the main actor can run a job while that work is
/// still going. Work running on the main actor blocks it, so the job cannot run until the work
/// returns and the bounded wait gives up (false). (On Linux the main actor's jobs need not run
/// on the main thread, so `Thread.isMainThread` would prove nothing.)
func mainActorIsFree(within seconds: Double = 10) -> Bool {
    let ran = DispatchSemaphore(value: 0)
    Task { @MainActor in ran.signal() }
    return ran.wait(timeout: .now() + seconds) == .success
}

/// The async face runs engine work off the caller's actor.
@Suite struct AsyncWalletTests {
    @MainActor @Test func payFromTheMainActorSignsOffTheMainActor() async throws {
        let freeWhileSigning = Mutex<Bool?>(nil)
        let h = try WalletHarness()
        let alice = AsyncWallet(
            try h.wallet("alice", funds: [5_000]) { point in
                if point == .paySigned { freeWhileSigning.withLock { $0 = mainActorIsFree() } }
            })
        let bob = AsyncWallet(try h.wallet("bob"))
        let request = try await bob.createRequest(amount: 1_200)
        let sent = try await alice.pay(request, method: .qr)
        #expect(freeWhileSigning.withLock { $0 } == true)
        let got = try await bob.receive(sent.bundle, for: request.nonce)
        try await alice.confirm(receipt: got.receipt.encoded)
        #expect(try await alice.balance().spendable == 3_800)
        // The payment found by its own nonce: the same payment, so the same receipt.
        #expect(try await bob.receive(sent.bundle, method: .qr).id == got.id)
        #expect(try await bob.snapshot().balance.unsettled == 1_200)
        #expect(try await alice.history().first?.status == .completed)
        // Typed errors come through unchanged.
        let tooMuch = try await bob.createRequest(amount: 9_000)
        await #expect(throws: WalletError.insufficientFunds(available: 3_800, requested: 9_000, currency: h.eur)) {
            try await alice.pay(tooMuch)
        }
    }

    /// Scrypt for the key file runs while the main actor keeps serving other work.
    @MainActor @Test func createWithPassphraseLeavesTheMainActorFree() async throws {
        let h = try WalletHarness()
        @MainActor final class Seen {
            var createReturned = false
            var createInFlight: Bool?
        }
        let seen = Seen()
        // Queued on the main actor before create starts: it runs at once if create leaves the
        // main actor, and only after create returns if create blocks it.
        let probe = Task { @MainActor in seen.createInFlight = !seen.createReturned }
        let wallet = try await AsyncWallet.create(
            directory: h.path("slow"), passphrase: "correct horse", keyCost: .interactive, environment: h.environment())
        seen.createReturned = true
        await probe.value
        #expect(seen.createInFlight == true)
        let reopened = try await AsyncWallet.open(
            directory: h.path("slow"), passphrase: "correct horse", environment: h.environment())
        #expect(reopened.publicKey == wallet.publicKey)
        await #expect(throws: WalletError.self) {
            try await AsyncWallet.open(directory: h.path("slow"), passphrase: "wrong", environment: h.environment())
        }
    }

    @MainActor @Test func backupAndRestoreRunOffTheMainActor() async throws {
        let h = try WalletHarness()
        let alice = AsyncWallet(try h.wallet("alice", funds: [700]))
        let backup = try await alice.exportBackup(passphrase: "pw", cost: .testing)
        let freeWhileRestoring = Mutex<Bool?>(nil)
        let clock = h.clock
        let env = WalletEnvironment(now: {
            freeWhileRestoring.withLock { $0 = mainActorIsFree() }
            return clock.now
        })
        let restored = try await AsyncWallet.restore(
            backup, passphrase: "pw", into: h.path("restored"), keyCost: .testing, environment: env)
        #expect(freeWhileRestoring.withLock { $0 } == true)
        #expect(try await restored.balance().needsOnlineCheck == 700)
        await #expect(throws: WalletError.walletExists(h.path("restored"))) {
            try await AsyncWallet.restore(backup, passphrase: "pw", into: h.path("restored"), keyCost: .testing)
        }
    }
}
