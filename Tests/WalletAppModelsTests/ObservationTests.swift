import Observation
import Synchronization
import Testing
import WalletAppModels

/// The models are observed by SwiftUI through Observation; these check, on Linux, that what a
/// screen reads (derived values included) reports a change when the person acts.
@MainActor
@Suite struct ObservationTests {
    /// Whether `change` changes anything `read` reads.
    func changes(_ read: @escaping @MainActor () -> Void, when change: () -> Void) -> Bool {
        let fired = Mutex(false)
        withObservationTracking {
            read()
        } onChange: {
            fired.withLock { $0 = true }
        }
        change()
        return fired.withLock { $0 }
    }

    @Test func sendsChecklistAndFocusAreObserved() throws {
        let fixture = try MessageFixture()
        let send = SendModel(currency: fixture.eur, offlineSpendable: 1_000, settled: 0, clock: TestClock(fixture.now))
        let request = try fixture.request(100)
        let checklist = changes({ _ = send.missing }, when: { send.amountText = "5" })
        let balance = changes({ _ = send.balanceLine }, when: { send.offlineSpendable = 2_000 })
        let focus = changes({ _ = send.focus.focused }, when: { send.appear() })
        let recipient = changes({ _ = send.recipient }, when: { send.useRequest(request) })
        let unrelated = changes({ _ = send.note }, when: { send.amountText = "6" })
        #expect(checklist && balance && focus && recipient)
        #expect(!unrelated, "unrelated reads are not invalidated")
    }

    @Test func scanProgressIsObserved() throws {
        let fixture = try MessageFixture()
        let frames = try fixture.frames(try fixture.request(100), count: 2)
        let scan = ScanAssembler()
        let progress = changes({ _ = scan.progress }, when: { scan.scan(frames[0]) })
        let result = changes({ _ = scan.result }, when: { scan.scan(frames[1]) })
        #expect(progress && result)
    }
}
