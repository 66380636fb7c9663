import NearbyGATTTesting
import NearbySession
import Synchronization
import Testing

@testable import NearbyGATT

/// Frames a task sent, counted as each `send` returns.
final class SendLog: Sendable {
    private let count = Mutex(0)
    private let error = Mutex<(any Error)?>(nil)
    var sent: Int { count.withLock { $0 } }
    var failure: (any Error)? { error.withLock { $0 } }
    func didSend() { count.withLock { $0 += 1 } }
    func failed(_ e: any Error) { error.withLock { $0 = e } }
}

/// Waits (by yielding, never by time) until `condition` holds or a generous number of turns
/// passed; returns whether it held.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<2_000_000 {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}

@Suite("GATT link: framing and flow control")
struct GATTLinkTests {
    /// Both ends of one connection on the simulated radio.
    static func connect(_ radio: SimulatedGATTRadio) async throws -> (payer: GATTLink, payee: any LinkConnection) {
        var accepted = radio.listener.connections().makeAsyncIterator()
        let payer = try #require(try await radio.dialer.connect() as? GATTLink)
        let payee = try #require(await accepted.next())
        return (payer, payee)
    }

    /// Sends `frames` in order on `link` from a task, logging each `send` that returned.
    static func sendAll(_ frames: [[UInt8]], on link: any LinkConnection) -> (Task<Void, Never>, SendLog) {
        let log = SendLog()
        let task = Task {
            do {
                for frame in frames {
                    try await link.send(frame)
                    log.didSend()
                }
            } catch { log.failed(error) }
        }
        return (task, log)
    }

    /// Every frame `link` receives until the other side closes (so a lost frame fails the
    /// comparison instead of waiting for it forever).
    static func collectUntilClosed(_ link: any LinkConnection) async -> [[UInt8]] {
        var arrived: [[UInt8]] = []
        do {
            for try await frame in link.inbound() { arrived.append(frame) }
        } catch {
            #expect(error as? GATTLinkError == .disconnected("the other device disconnected"))
        }
        return arrived
    }

    static func frames(_ count: Int, size: Int) -> [[UInt8]] {
        (0..<count).map { i in (0..<size).map { UInt8(truncatingIfNeeded: i &* 31 &+ $0) } }
    }

    @Test func aFullQueueSuspendsTheSenderAndLosesNothing() async throws {
        let radio = SimulatedGATTRadio(.init(attMTU: 23, queueCapacity: 1, linkCapacity: 2))
        let (payer, payee) = try await Self.connect(radio)
        radio.stall(.toPeripheral)
        let frames = Self.frames(40, size: 20)
        let (sender, log) = Self.sendAll(frames, on: payer)
        // One frame in the radio, two in the link, and the fourth send suspended.
        #expect(await eventually { payer.backlog.waiting == 1 || log.sent == frames.count })
        #expect(log.sent == 3, "the sender was not held back by the full queue")
        #expect(payer.backlog.queued == 2)
        #expect(radio.counters.refusals >= 1)
        #expect(radio.counters.toPeripheral == 0)

        radio.release(.toPeripheral)
        await sender.value
        payer.close()
        let arrived = await Self.collectUntilClosed(payee)
        #expect(log.failure == nil)
        #expect(log.sent == frames.count)
        #expect(arrived == frames, "frames were lost, duplicated or reordered")
        #expect(radio.counters.readySignals >= 1)
        #expect(payer.backlog == (0, 0))
    }

    @Test func theNotifyingSideIsHeldBackToo() async throws {
        let radio = SimulatedGATTRadio(.init(attMTU: 185, queueCapacity: 1, linkCapacity: 1))
        let (payer, payee) = try await Self.connect(radio)
        radio.stall(.toCentral)
        let frames = Self.frames(25, size: 182)
        let (sender, log) = Self.sendAll(frames, on: payee)
        let link = try #require(payee as? GATTLink)
        #expect(await eventually { link.backlog.waiting == 1 || log.sent == frames.count })
        #expect(log.sent == 2)
        radio.release(.toCentral)
        await sender.value
        payee.close()
        let arrived = await Self.collectUntilClosed(payer)
        #expect(arrived == frames)
    }

    @Test func aDisconnectFailsTheWaitingSendAndEndsInbound() async throws {
        let radio = SimulatedGATTRadio(.init(attMTU: 23, queueCapacity: 1, linkCapacity: 1))
        let (payer, payee) = try await Self.connect(radio)
        radio.stall(.toPeripheral)
        let (sender, log) = Self.sendAll(Self.frames(10, size: 20), on: payer)
        #expect(await eventually { payer.backlog.waiting == 1 || log.sent == 10 })
        radio.cut()
        await sender.value
        #expect(log.sent == 2)
        #expect(log.failure as? GATTLinkError == .disconnected("simulated radio cut"))
        await #expect(throws: GATTLinkError.disconnected("simulated radio cut")) {
            for try await _ in payee.inbound() {}
        }
        await #expect(throws: GATTLinkError.disconnected("simulated radio cut")) {
            try await payer.send([1])
        }
        #expect(!payer.isOpen)
    }

    @Test func anOversizeFrameIsRefusedBeforeTheRadio() async throws {
        let radio = SimulatedGATTRadio(.init(attMTU: 23))
        let (payer, payee) = try await Self.connect(radio)
        #expect(payer.mtu == 20 && payee.mtu == 20)
        await #expect(throws: GATTLinkError.frameTooLarge(size: 21, maximum: 20)) {
            try await payer.send([UInt8](repeating: 7, count: 21))
        }
        #expect(radio.counters.toPeripheral == 0 && radio.counters.refusals == 0)
        // The link is still usable: a frame that fits goes through.
        try await payer.send([UInt8](repeating: 7, count: 20))
        var inbound = payee.inbound().makeAsyncIterator()
        #expect(try await inbound.next() == [UInt8](repeating: 7, count: 20))
    }

    @Test func closingDeliversWhatWasQueuedThenDisconnects() async throws {
        let radio = SimulatedGATTRadio(.init(attMTU: 23, queueCapacity: 1, linkCapacity: 8))
        let (payer, payee) = try await Self.connect(radio)
        radio.stall(.toPeripheral)
        let frames = Self.frames(5, size: 20)
        for frame in frames { try await payer.send(frame) }
        payer.close()
        await #expect(throws: GATTLinkError.closed) { try await payer.send([1]) }
        radio.release(.toPeripheral)
        let arrived = await Self.collectUntilClosed(payee)
        #expect(arrived == frames, "close() cut off frames the session had already sent")
    }

    @Test func aClosedListenerIsNotFound() async throws {
        let radio = SimulatedGATTRadio(.init(attMTU: 185))
        let (payer, _) = try await Self.connect(radio)
        radio.listener.close()
        #expect(radio.listener.isClosed)
        await #expect(throws: GATTLinkError.payeeNotFound) { _ = try await radio.dialer.connect() }
        // Its links closed with it: the payer's link hears the disconnect.
        var inbound = payer.inbound().makeAsyncIterator()
        await #expect(throws: GATTLinkError.self) { _ = try await inbound.next() }
    }

    @Test func packetLengthFollowsTheATTMTU() {
        #expect(GATTProfile.packetLength(attMTU: 23) == 20)
        #expect(GATTProfile.packetLength(attMTU: 185) == 182)
        #expect(GATTProfile.packetLength(attMTU: 517) == 512)
        #expect(GATTProfile.packetLength(attMTU: 1_000) == 512)
        #expect(GATTProfile.packetLength(attMTU: 10) == 20)
    }
}
