import Crypto
import OfflineNotes
import Synchronization

enum PumpOutcome {
    case finished
    case lost(String)
}

/// Runs `machine` on one link until it finishes, the link is lost, or a fatal error.
/// `onEvent` answers the machine's events (the payee's wallet call, the payer's receipt); its
/// third argument writes what is due now (an ACK) while the answer is still being worked out.
func drive<M: SessionMachine>(
    _ pump: LinkPump, _ machine: inout M, options: SessionOptions, clock: ContinuousClock.Instant,
    deadline: ContinuousClock.Instant,
    onEvent: (SessionEvent, inout M, _ writeDue: (inout M) async -> Void) async throws -> Void,
    progress: (SessionProgress) -> Void
) async throws -> PumpOutcome {
    // `writeDue` reports progress; the closure handed to `onEvent` may only capture an
    // escaping `progress`, and it does not outlive this call.
    try await withoutActuallyEscaping(progress) { progress in
        try await driveLink(
            pump, &machine, options: options, clock: clock, deadline: deadline, onEvent: onEvent, progress: progress)
    }
}

private func driveLink<M: SessionMachine>(
    _ pump: LinkPump, _ machine: inout M, options: SessionOptions, clock: ContinuousClock.Instant,
    deadline: ContinuousClock.Instant,
    onEvent: (SessionEvent, inout M, _ writeDue: (inout M) async -> Void) async throws -> Void,
    progress: @escaping (SessionProgress) -> Void
) async throws -> PumpOutcome {
    let mtu = pump.connection.mtu
    // Reported whenever the byte counts move, not only when this side writes: the payer learns
    // that its last bytes arrived from an ACK it does not answer, and a client shows
    // "waiting for the receipt" from that moment.
    var reported: SessionProgress?
    var written = 0
    func report(_ machine: M) {
        var now = machine.progress
        now.written = max(written, now.acknowledged)
        if now != reported {
            reported = now
            progress(now)
        }
    }
    func flush(_ machine: inout M) async -> Bool {
        let frames = machine.frames(mtu: mtu, now: ContinuousClock.now - clock, rto: options.retransmitAfter)
        for frame in frames {
            do { try await pump.send([frame]) } catch { return false }
            if case .data(let offset, _, let bytes) = frame, offset + bytes.count > written {
                written = offset + bytes.count
                report(machine)
            }
        }
        if !frames.isEmpty { report(machine) }
        machine.written(now: ContinuousClock.now - clock)
        return true
    }
    guard await flush(&machine) else { return .lost("could not write to the link") }
    // When a write fails the link is going: what the peer sent before it went is still read
    // (its last ACK may be among it, and then this side is done, not lost). The read side ends
    // with the link; `readAfterFailedWrite` bounds a link whose read side stays open.
    var writeFailed: ContinuousClock.Instant?
    let readAfterFailedWrite = max(.seconds(1), options.retransmitAfter * 2)
    while true {
        if machine.isFinished { return .finished }
        guard ContinuousClock.now < deadline else { throw NearbyError.timedOut }
        if let writeFailed, ContinuousClock.now - writeFailed >= readAfterFailedWrite {
            return .lost("could not write to the link")
        }
        for input in await pump.next() {
            if machine.isFinished { return .finished }
            switch input {
            case .closed(let why):
                return .lost(writeFailed == nil ? why : "could not write to the link")
            case .tick:
                continue
            case .frame(let bytes):
                do {
                    let frame = try LinkFrame(decoding: bytes)
                    let event = try machine.handle(frame, now: ContinuousClock.now - clock)
                    report(machine)
                    guard let event else { continue }
                    // The answer is taken even if the link has gone, so a resumed session finds
                    // the reply.
                    try await onEvent(event, &machine) { machine in
                        if writeFailed == nil, !(await flush(&machine)) { writeFailed = .now }
                    }
                } catch let error as NearbyError {
                    if case .aborted = error {} else { try? await pump.send([.abort(abortCode(for: error).rawValue)]) }
                    throw error
                }
            }
        }
        if writeFailed == nil, !(await flush(&machine)) { writeFailed = .now }
    }
}

func abortCode(for error: NearbyError) -> AbortCode {
    switch error {
    case .decryptionFailed: .decryptionFailed
    case .refused, .receiptNotBound: .cancelled
    default: .protocolError
    }
}

func tickInterval(_ options: SessionOptions) -> Duration {
    max(.milliseconds(5), options.retransmitAfter / 4)
}

/// The payer's whole nearby payment: connect, send, resume after drops, return the receipt.
public enum NearbyPayment {
    public struct Result: Sendable {
        /// The payee's receipt, bound to `transcriptHash`; hand it to `Wallet.confirm`.
        public let receipt: [UInt8]
        public let transcriptHash: Digest32
        /// Links opened after the first one.
        public let reconnects: Int
        /// Sessions started afresh because the payee no longer knew the old one.
        public let restarts: Int
    }

    /// Sends `bundle` (already signed and stored by the wallet) for `request` and waits for the
    /// receipt. A lost link is reopened and the session resumed where it stopped; the bundle is
    /// never re-signed.
    public static func pay(
        request: PaymentRequest, bundle: [UInt8], dialer: any LinkDialer, options: SessionOptions = SessionOptions(),
        progress: @Sendable (SessionProgress) -> Void = { _ in }
    ) async throws(NearbyError) -> Result {
        let clock = ContinuousClock.now
        let deadline = clock + options.timeout
        var machine = try NearbyPayer(request: request, bundle: bundle)
        var resuming = false
        var reconnects = -1
        var restarts = 0
        // Links the payee answered "busy": it is alive and still on the previous link (it has
        // not yet noticed that link drop, or its wallet is still answering). Those are not lost
        // links, so they do not use up `maxReconnects`; the deadline bounds the wait. (On a
        // loaded phone the wallet's answer can outlast every backoff step together.)
        var busyAnswers = 0
        var lastProblem = "no link"
        while true {
            reconnects += 1
            guard reconnects - busyAnswers <= options.maxReconnects else { throw .linkLost(lastProblem) }
            guard ContinuousClock.now < deadline else { throw .timedOut }
            if reconnects > 0 { try? await Task.sleep(for: min(.seconds(2), options.retransmitAfter * reconnects)) }
            let connection: any LinkConnection
            do { connection = try await dialer.connect() } catch {
                lastProblem = "\(error)"
                continue
            }
            let pump = LinkPump(connection, tick: tickInterval(options))
            defer { pump.stop() }
            do {
                if resuming, let frame = machine.resumeFrame() { try await pump.send([frame]) }
                var receipt: [UInt8]?
                let outcome = try await drive(
                    pump, &machine, options: options, clock: clock, deadline: deadline,
                    onEvent: { event, _, _ in if case .receipt(let bytes) = event { receipt = bytes } },
                    progress: progress)
                switch outcome {
                case .finished:
                    guard let receipt else { throw NearbyError.protocolViolation("finished without a receipt") }
                    return Result(
                        receipt: receipt, transcriptHash: machine.transcriptHash, reconnects: reconnects, restarts: restarts)
                case .lost(let why):
                    lastProblem = why
                    resuming = true
                }
            } catch NearbyError.aborted(.unknownSession) {
                // The payee restarted: a new session (new keys) carries the same signed bundle.
                machine = try NearbyPayer(request: request, bundle: bundle)
                resuming = false
                restarts += 1
            } catch NearbyError.aborted(.busy) {
                busyAnswers += 1
                resuming = true
            } catch let error as NearbyError {
                throw error
            } catch {
                lastProblem = "\(error)"
                resuming = true
            }
        }
    }
}

extension NearbyPayment {
    /// Asks a payee listening at `dialer` for its request (§12.7). The answer is not
    /// authenticated: the caller must check `payee` against a key it got from the payee itself.
    public static func fetchRequest(
        from dialer: any LinkDialer, timeout: Duration = .seconds(10)
    ) async throws(NearbyError)
        -> PaymentRequest
    {
        let connection: any LinkConnection
        do { connection = try await dialer.connect() } catch { throw .linkLost("\(error)") }
        let pump = LinkPump(connection, tick: .milliseconds(100))
        defer { pump.stop() }
        let deadline = ContinuousClock.now + timeout
        do { try await pump.send([.ack(received: 0)]) } catch { throw .linkLost("\(error)") }
        var inbox = Inbox()
        while ContinuousClock.now < deadline {
            switch await pump.nextOne() {
            case .tick:
                continue
            case .closed(let why):
                throw .linkLost(why)
            case .frame(let bytes):
                guard case .data(let offset, let fin, let data) = try LinkFrame(decoding: bytes) else {
                    throw .protocolViolation("expected the request")
                }
                guard let record = try inbox.take(offset: offset, fin: fin, data: data).first else { continue }
                do { return try PaymentRequest(decoding: record) } catch {
                    throw .protocolViolation("the payee sent no valid request: \(error)")
                }
            }
        }
        throw .timedOut
    }
}

/// How the payee's wallet answers a payment that arrived through a session.
public enum PaymentAnswer: Sendable, Equatable {
    case receipt([UInt8])
    case refuse(code: String, message: String)
}

/// The payee's side: accepts links for one request, runs a session on each, lets a payer
/// resume a dropped one, and returns once a payment has been answered with a receipt.
public final class NearbyReceiver: Sendable {
    public struct Result: Sendable {
        public let receipt: [UInt8]
        public let transcriptHash: Digest32
        /// Links accepted (reconnects and restarts included).
        public let links: Int
    }

    private struct State {
        var parked: [[UInt8]: NearbyPayee] = [:]
        var busy: Set<[UInt8]> = []
        var answer: Result?
        var answeredAt: ContinuousClock.Instant?
        /// When the last link working on a session ended (the payer's link dropped or broke).
        var idleSince: ContinuousClock.Instant?
        var delivered = false
        var links = 0
        var lastError: NearbyError?
    }

    public let request: PaymentRequest
    private let ephemeral: SendableKey<P256.KeyAgreement.PrivateKey>
    private let options: SessionOptions
    private let state = Mutex(State())

    /// - Parameter ephemeral: the private half of `request.sessionKey`, kept in memory only.
    public init(
        request: PaymentRequest, ephemeral: P256.KeyAgreement.PrivateKey, options: SessionOptions = SessionOptions()
    ) throws(NearbyError) {
        _ = try NearbyPayee(request: request, ephemeral: ephemeral)
        self.request = request
        self.ephemeral = SendableKey(ephemeral)
        self.options = options
    }

    /// Serves `listener` until a payment is answered with a receipt and the payer acknowledged
    /// it, or `options.linger` after the answer while no link carries the session (so a payer
    /// that lost the reply can resume), or `options.timeout` passes.
    public func serve(
        _ listener: any LinkListener,
        answer: @escaping @Sendable (_ bundle: [UInt8], _ transcriptHash: Digest32) async -> PaymentAnswer,
        progress: @escaping @Sendable (SessionProgress) -> Void = { _ in }
    ) async throws(NearbyError) -> Result {
        let clock = ContinuousClock.now
        let deadline = clock + options.timeout
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while ContinuousClock.now < deadline, !Task.isCancelled {
                    let done = self.state.withLock { s in
                        guard let at = s.answeredAt else { return false }
                        if s.delivered { return true }
                        // The linger counts from the moment no link carries the session any more,
                        // not from the answer: while the payer's link stands, the reply is still
                        // on its way (a loaded phone can take longer than `linger` to send it),
                        // and closing then would cut the reply off and turn the payer's resume
                        // away as "payee not found". The deadline bounds a link that never ends.
                        guard s.busy.isEmpty else { return false }
                        return ContinuousClock.now - max(at, s.idleSince ?? at) >= self.options.linger
                    }
                    if done { break }
                    try? await Task.sleep(for: .milliseconds(20))
                }
                listener.close()
            }
            for await connection in listener.connections() {
                state.withLock { $0.links += 1 }
                group.addTask {
                    await self.handle(connection, clock: clock, deadline: deadline, answer: answer, progress: progress)
                }
            }
            group.cancelAll()
        }
        let result: (Result?, NearbyError?) = state.withLock { s in
            (s.answer.map { Result(receipt: $0.receipt, transcriptHash: $0.transcriptHash, links: s.links) }, s.lastError)
        }
        if let answer = result.0 { return answer }
        throw result.1 ?? .timedOut
    }

    private func handle(
        _ connection: any LinkConnection, clock: ContinuousClock.Instant, deadline: ContinuousClock.Instant,
        answer: @escaping @Sendable ([UInt8], Digest32) async -> PaymentAnswer, progress: (SessionProgress) -> Void
    ) async {
        let pump = LinkPump(connection, tick: tickInterval(options))
        defer { pump.stop() }
        var input = await pump.nextOne()
        while case .tick = input {
            guard ContinuousClock.now < deadline else { return }
            input = await pump.nextOne()
        }
        guard case .frame(let first) = input, let frame = try? LinkFrame(decoding: first) else {
            try? await pump.send([.abort(AbortCode.protocolError.rawValue)])
            return
        }
        var machine: NearbyPayee
        switch frame {
        case .resume(let sessionID, _):
            let found: Swift.Result<NearbyPayee, AbortCode> = state.withLock { s in
                if s.busy.contains(sessionID) { return .failure(.busy) }
                guard let m = s.parked.removeValue(forKey: sessionID) else { return .failure(.unknownSession) }
                s.busy.insert(sessionID)
                return .success(m)
            }
            switch found {
            case .failure(let code):
                try? await pump.send([.abort(code.rawValue)])
                return
            case .success(let parked):
                machine = parked
            }
        case .data:
            do { machine = try NearbyPayee(request: request, ephemeral: ephemeral.value) } catch { return }
        case .ack(0):
            // A payer that has only this listener's address asks for the request (§12.7).
            var outbox = Outbox()
            outbox.append(record: request.encoded)
            try? await pump.send(outbox.frames(mtu: connection.mtu, now: .zero, rto: options.retransmitAfter))
            return
        default:
            try? await pump.send([.abort(AbortCode.protocolError.rawValue)])
            return
        }

        // From here on the machine is ours: whatever happens, hand it back for a resume.
        var outcome: PumpOutcome = .lost("stopped")
        do {
            _ = try machine.handle(frame, now: ContinuousClock.now - clock)
            if case .resume = frame, let reply = machine.resumeFrame() { try await pump.send([reply]) }
            outcome = try await drive(
                pump, &machine, options: options, clock: clock, deadline: deadline,
                onEvent: { event, machine, writeDue in
                    guard case .payment(let bundle, let transcript) = event else { return }
                    if let id = machine.sessionID { _ = self.state.withLock { $0.busy.insert(id) } }
                    // A quick wallet's reply travels with the ACK of the payment (its first bytes
                    // acknowledge the whole stream). A wallet still checking after half the
                    // retransmission timeout gets the ACK sent ahead, so the payer does not send
                    // the payment again meanwhile.
                    let patience = options.retransmitAfter / 2
                    let reply = await withTaskGroup(of: PaymentAnswer?.self) { group in
                        group.addTask { await answer(bundle, transcript) }
                        group.addTask {
                            try? await Task.sleep(for: patience)
                            return nil
                        }
                        var reply: PaymentAnswer?
                        while reply == nil, let next = await group.next() {
                            if let next { reply = next } else { await writeDue(&machine) }
                        }
                        group.cancelAll()
                        return reply
                    }
                    switch reply ?? .refuse(code: "internal", message: "The wallet gave no answer.") {
                    case .receipt(let receipt):
                        try machine.reply(receipt: receipt)
                        self.state.withLock { s in
                            if s.answer == nil {
                                s.answer = Result(receipt: receipt, transcriptHash: transcript, links: 0)
                                s.answeredAt = .now
                            }
                        }
                    case .refuse(let code, let message):
                        try machine.refuse(code: code, message: message)
                        self.state.withLock { $0.lastError = .refused(code: code, message: message) }
                    }
                },
                progress: progress)
        } catch let error as NearbyError {
            state.withLock { $0.lastError = error }
            outcome = .finished  // a broken session is not resumed
        } catch {
            outcome = .lost("\(error)")
        }
        let final = machine
        state.withLock { s in
            guard let id = final.sessionID else { return }
            s.busy.remove(id)
            s.idleSince = .now
            switch outcome {
            case .lost: s.parked[id] = final
            case .finished: if final.replied, final.isFinished, s.answer != nil { s.delivered = true }
            }
        }
    }
}
