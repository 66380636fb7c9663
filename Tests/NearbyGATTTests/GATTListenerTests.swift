import NearbySession
import Synchronization
import Testing

@testable import NearbyGATT

/// A port the test drives by hand: it takes packets while `accepting`, and records them.
final class ManualPort: GATTPacketPort {
    private struct State {
        var accepting = true
        var sent: [[UInt8]] = []
        var disconnects = 0
    }

    private let state = Mutex(State())
    let maximumPacketLength: Int

    init(packetLength: Int = 20, accepting: Bool = true) {
        maximumPacketLength = packetLength
        state.withLock { $0.accepting = accepting }
    }

    var sent: [[UInt8]] { state.withLock { $0.sent } }
    var disconnects: Int { state.withLock { $0.disconnects } }
    func accept(_ on: Bool) { state.withLock { $0.accepting = on } }

    func trySend(_ packet: [UInt8]) -> Bool {
        state.withLock { s in
            guard s.accepting else { return false }
            s.sent.append(packet)
            return true
        }
    }

    func disconnect() { state.withLock { $0.disconnects += 1 } }
}

@Suite("GATT listener: routing by central")
struct GATTListenerTests {
    @Test func writesReachTheSubscribedCentralsLinkOnly() async throws {
        let listener = GATTListener()
        var links = listener.connections().makeAsyncIterator()
        listener.received([9], from: "nobody")  // not subscribed: ignored
        let a = try #require(listener.accept(ManualPort(), central: "A"))
        let b = try #require(listener.accept(ManualPort(), central: "B"))
        #expect(try #require(await links.next()) as? GATTLink === a)
        #expect(try #require(await links.next()) as? GATTLink === b)
        listener.received([1], from: "A")
        listener.received([2], from: "B")
        listener.received([3], from: "A")
        a.close()
        b.close()
        var fromA: [[UInt8]] = []
        for try await packet in a.inbound() { fromA.append(packet) }
        var fromB: [[UInt8]] = []
        for try await packet in b.inbound() { fromB.append(packet) }
        #expect(fromA == [[1], [3]] && fromB == [[2]])
    }

    @Test func aCentralThatSubscribesAgainReplacesItsLink() async throws {
        let listener = GATTListener()
        let old = try #require(listener.accept(ManualPort(), central: "A"))
        let new = try #require(listener.accept(ManualPort(), central: "A"))
        await #expect(throws: GATTLinkError.disconnected("the payer subscribed again")) {
            for try await _ in old.inbound() {}
        }
        #expect(listener.link(for: "A") === new && new.isOpen)
        listener.disconnected(central: "A", reason: "unsubscribed")
        #expect(listener.link(for: "A") == nil && !new.isOpen)
    }

    @Test func readinessReachesEveryLinkWaitingForTheRadio() async throws {
        let listener = GATTListener()
        let ports = [ManualPort(accepting: false), ManualPort(accepting: false)]
        let links = try ports.enumerated().map { i, port in try #require(listener.accept(port, central: "\(i)")) }
        for (i, link) in links.enumerated() { try await link.send([UInt8(i)]) }
        #expect(ports.allSatisfy { $0.sent.isEmpty }, "the radio refused: nothing may count as sent")
        for port in ports { port.accept(true) }
        listener.readyToSend()
        #expect(ports.map(\.sent) == [[[0]], [[1]]])
    }

    @Test func closingStopsAcceptingAndRunsOnCloseOnce() async throws {
        let closes = Mutex(0)
        let listener = GATTListener(onClose: { closes.withLock { $0 += 1 } })
        let port = ManualPort()
        let link = try #require(listener.accept(port, central: "A"))
        listener.close()
        listener.close()
        #expect(closes.withLock { $0 } == 1)
        #expect(listener.accept(ManualPort(), central: "B") == nil)
        #expect(!link.isOpen && port.disconnects == 1)
        var links = listener.connections().makeAsyncIterator()
        #expect(try #require(await links.next()) as? GATTLink === link)
        #expect(await links.next() == nil)
    }

    @Test func aCancelledSendLeavesTheOthersInOrder() async throws {
        let port = ManualPort(accepting: false)
        let link = GATTLink(port: port, capacity: 1)
        try await link.send([1])
        let cancelled = Task { try await link.send([2]) }
        #expect(await eventually { link.backlog.waiting == 1 })
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        let last = Task { try await link.send([3]) }
        #expect(await eventually { link.backlog.waiting == 1 })
        port.accept(true)
        link.readyToSend()
        try await last.value
        #expect(port.sent == [[1], [3]])
    }
}

@Suite("GATT listener: closing while a link drains")
struct GATTListenerDrainTests {
    /// The session closed the listener (its payment answered) while the radio had refused the
    /// link's last frame: the peripheral manager's readiness must still reach that link, or its
    /// frames never leave, it never disconnects, and the payer waits for them until its deadline.
    @Test func aLinkClosedWithTheListenerStillHearsReadinessAndDisconnects() async throws {
        let listener = GATTListener()
        let port = ManualPort(accepting: false)
        let link = try #require(listener.accept(port, central: "A"))
        try await link.send([7])
        listener.close()
        #expect(port.sent.isEmpty && port.disconnects == 0, "the queued frame has not gone out yet")
        #expect(listener.sendingLink(for: "A") === link)
        port.accept(true)
        listener.readyToSend()
        #expect(port.sent == [[7]], "the closing link never heard the radio's readiness")
        #expect(port.disconnects == 1)
        #expect(listener.sendingLink(for: "A") == nil, "a drained link needs no readiness")
    }

    /// A payer that drops while its link drains ends that link (nothing waits for it).
    @Test func aDrainingLinkHearsItsCentralDisconnect() async throws {
        let listener = GATTListener()
        let port = ManualPort(accepting: false)
        let link = try #require(listener.accept(port, central: "A"))
        try await link.send([7])
        listener.close()
        listener.disconnected(central: "A", reason: "gone")
        #expect(link.isDraining == false)
        #expect(listener.sendingLink(for: "A") == nil)
    }
}
