import Synchronization

/// Moves frames between one link and one session machine, with a retransmission clock.
/// Owned by the one task that drives the session (not shared).
final class LinkPump {
    enum Input: Sendable {
        case frame([UInt8])
        case closed(String)
        case tick
    }

    let connection: any LinkConnection
    private let inputs = Inputs()
    /// The rest of a batch `nextOne()` took its first input from.
    private var leftover: [Input] = []
    private let tasks: [Task<Void, Never>]

    init(_ connection: any LinkConnection, tick: Duration) {
        self.connection = connection
        let inputs = inputs
        let reader = Task {
            do {
                for try await frame in connection.inbound() { inputs.push(.frame(frame)) }
                inputs.push(.closed("the other device closed the link"))
            } catch {
                inputs.push(.closed("\(error)"))
            }
        }
        let ticker = Task {
            while !Task.isCancelled {
                do { try await Task.sleep(for: tick) } catch { break }
                inputs.push(.tick)
            }
        }
        tasks = [reader, ticker]
    }

    /// Everything that arrived since the last call, in order, waiting for at least one input:
    /// a burst of frames (a peer's retransmission) is handled before this side writes, so one
    /// ACK answers all of it. `.closed("stopped")` once the driving task is cancelled.
    func next() async -> [Input] {
        if !leftover.isEmpty {
            defer { leftover = [] }
            return leftover
        }
        return await inputs.next()
    }

    /// The next input alone; the rest of its batch is what `next()` returns next.
    func nextOne() async -> Input {
        var batch = await next()
        guard !batch.isEmpty else { return .closed("stopped") }
        let first = batch.removeFirst()
        leftover = batch
        return first
    }

    func send(_ frames: [LinkFrame]) async throws {
        for frame in frames { try await connection.send(frame.encoded) }
    }

    func stop() {
        tasks.forEach { $0.cancel() }
        connection.close()
    }

    /// The inputs waiting for the driver; ticks coalesce (one pending tick is enough).
    private final class Inputs: Sendable {
        private struct State {
            var pending: [Input] = []
            var tickPending = false
            var waiter: CheckedContinuation<[Input], Never>?

            mutating func take() -> [Input] {
                defer {
                    pending = []
                    tickPending = false
                }
                return pending
            }
        }

        private let state = Mutex(State())

        func push(_ input: Input) {
            let wake: (CheckedContinuation<[Input], Never>, [Input])? = state.withLock { s in
                if case .tick = input {
                    guard !s.tickPending else { return nil }
                    s.tickPending = true
                }
                s.pending.append(input)
                guard let waiter = s.waiter else { return nil }
                s.waiter = nil
                return (waiter, s.take())
            }
            if let wake { wake.0.resume(returning: wake.1) }
        }

        func next() async -> [Input] {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<[Input], Never>) in
                    let ready: [Input]? = state.withLock { s in
                        if Task.isCancelled { return [.closed("stopped")] }
                        if !s.pending.isEmpty { return s.take() }
                        s.waiter = continuation
                        return nil
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            } onCancel: {
                let waiter = state.withLock { s in
                    defer { s.waiter = nil }
                    return s.waiter
                }
                waiter?.resume(returning: [.closed("stopped")])
            }
        }
    }
}
