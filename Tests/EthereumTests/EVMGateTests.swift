import Synchronization
import Testing

@testable import EVMTesting

/// Lines written from several tasks.
final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// The gate that keeps the EVM tests that stop automine or revert away from all others.
@Suite struct EVMGateTests {
    /// An exclusive holder that arrives while a shared one runs waits for it; a shared holder
    /// arriving after the exclusive one waits for the exclusive (no starvation).
    @Test func exclusiveWaitsForSharedAndLaterSharedWaitsForExclusive() async throws {
        let gate = EVMGate()
        let log = Lines()
        let (release, releaser) = AsyncStream<Void>.makeStream()
        let first = Task {
            try await gate.holding(exclusive: false) {
                log.append("shared 1 start")
                for await _ in release { break }
                log.append("shared 1 end")
            }
        }
        while log.all.isEmpty { await Task.yield() }
        let exclusive = Task { try await gate.holding(exclusive: true) { log.append("exclusive") } }
        while await gate.waitingCount < 1, !log.all.contains("exclusive") { await Task.yield() }
        let second = Task { try await gate.holding(exclusive: false) { log.append("shared 2") } }
        while await gate.waitingCount < 2, !log.all.contains("shared 2") { await Task.yield() }
        #expect(log.all == ["shared 1 start"])
        releaser.yield()
        try await first.value
        try await exclusive.value
        try await second.value
        #expect(log.all == ["shared 1 start", "shared 1 end", "exclusive", "shared 2"])
    }

    /// A holder whose body throws still lets the next one in.
    @Test func aThrowingHolderReleasesTheGate() async throws {
        struct Boom: Error {}
        let gate = EVMGate()
        await #expect(throws: Boom.self) { try await gate.holding(exclusive: true) { throw Boom() } }
        #expect(try await gate.holding(exclusive: true) { 42 } == 42)
        #expect(try await gate.holding(exclusive: false) { 7 } == 7)
    }
}
