import Crypto
import NearbySession
import OfflineNotes
import Synchronization
import WalletCore

/// What a nearby receive is doing, in order, for a progress screen.
public enum NearbyReceiveProgress: Sendable, Equatable {
    /// Waiting for a payer to open a link.
    case listening
    /// A payer opened link number `link` (1, then 2, 3, … when a dropped link is replaced).
    case payerConnected(link: Int)
    /// `bytes` of the payer's stream arrived. The total is not on the wire (the payer's stream
    /// has no length prefix, docs/protocol.md §12.3), so there is no "of n" on this side.
    case receiving(bytes: Int)
    /// The payment verified and is stored in this wallet.
    case verified(amount: UInt64, paymentID: Digest32)
    /// The wallet refused the payment (its error code and message); the payer is told.
    case refused(code: String, message: String)
    /// The receipt is on its way to the payer.
    case receiptSent
}

/// A nearby request and the in-memory session key that answers it. The key never touches
/// storage: the request is good for this process's listener only.
public struct NearbyRequest: Sendable {
    public let request: PaymentRequest
    let ephemeral: SendableKey<P256.KeyAgreement.PrivateKey>
}

/// A payment received over a nearby session.
public struct NearbyReceiveResult: Sendable {
    public let payment: ReceivedPayment
    public var receipt: Receipt { payment.receipt }
    public let request: PaymentRequest
    /// The session the receipt sent back is bound to.
    public let transcriptHash: Digest32
    /// Links accepted (reconnects and restarts included).
    public let links: Int
}

/// Why receiving failed, and whether a payment was kept anyway.
public struct NearbyReceiveError: Error, Sendable, CustomStringConvertible {
    public enum Outcome: Sendable, Equatable {
        /// Nothing was received; nothing in the wallet changed.
        case nothingReceived
        /// The payment verified and is kept; the payer gets the receipt by paying the same
        /// request again (while a listener for it is up).
        case receivedAndKept(paymentID: Digest32)
    }

    public let outcome: Outcome
    public let cause: NearbyError

    public var description: String {
        switch outcome {
        case .nothingReceived: "\(cause.description) Nothing was received; nothing in this wallet changed."
        case .receivedAndKept:
            "\(cause.description) The payment was verified and kept in this wallet; the payer gets the receipt by paying the same request again."
        }
    }
}

/// The payee's side of a nearby payment as one library call: serve one request on any
/// listener until it is paid (or the timeout passes), verifying the payment through
/// `Wallet.receive` and sending the receipt back.
///
/// ## Example
///
/// ```swift
/// let flow = NearbyReceiveFlow(wallet: wallet)
/// let nearby = try flow.createRequest(amount: 1_250, payeeName: "Stall 4", hints: [.tcp("192.0.2.10:7000")])
/// // Show nearby.request to the payer (QR frames), then wait for the payment:
/// let result = try await flow.serve(nearby, on: listener) { step in print(step) }
/// print("received", result.payment.amount, "over", result.links, "link(s)")
/// ```
public struct NearbyReceiveFlow: Sendable {
    /// How the flow asks the wallet to accept a payment; a client may wrap the call (the
    /// command line takes its wallet lock around it). The default is
    /// `wallet.receive(bundle, method: method, transcriptHash:)` with the flow's `method`.
    public typealias Accept = @Sendable (_ bundle: [UInt8], _ transcriptHash: Digest32) throws -> ReceivedPayment
    /// The code and message sent to the payer for a refused payment.
    public typealias Refusal = @Sendable (any Error) -> (code: String, message: String)

    public let wallet: Wallet
    public let options: SessionOptions
    private let accept: Accept
    private let refusal: Refusal

    /// - Parameters:
    ///   - wallet: the payee's wallet; the requests are its own.
    ///   - options: the session's timing (retransmission, timeout, linger).
    ///   - method: what the wallet's history calls a payment received by the default
    ///     `accept`: the link the client listens on (`.tcp` for the command line, `.bluetooth`
    ///     for the app).
    ///   - accept: how a verified payment is taken in; nil: `wallet.receive` with `method`.
    ///   - refusal: the code and message the payer is sent for a refused payment; nil:
    ///     `describe`.
    public init(
        wallet: Wallet, options: SessionOptions = SessionOptions(), method: PaymentMethod = .tcp, accept: Accept? = nil,
        refusal: Refusal? = nil
    ) {
        self.wallet = wallet
        self.options = options
        self.accept = accept ?? { bundle, transcript in try wallet.receive(bundle, method: method, transcriptHash: transcript) }
        self.refusal = refusal ?? Self.describe
    }

    /// The wallet's own code and message; anything else is refused as `refused`.
    public static let describe: Refusal = { error in
        if let e = error as? WalletError { return (e.code, e.description) }
        return ("refused", "\(error)")
    }

    /// Creates and stores a request that offers a nearby session, with a fresh session key.
    /// - Parameters:
    ///   - amount: minor units; 0 lets the payer choose.
    ///   - payeeName: the name the payer's screen shows.
    ///   - expiresIn: seconds the request stays payable.
    ///   - hints: where payers reach this device (e.g. `.tcp("host:port")`).
    public func createRequest(
        amount: UInt64, payeeName: String = "", expiresIn: UInt64 = 600, hints: [TransportHint]
    ) throws(WalletError) -> NearbyRequest {
        let ephemeral = P256.KeyAgreement.PrivateKey()
        let request = try wallet.createRequest(
            amount: amount, payeeName: payeeName, expiresIn: expiresIn, hints: hints,
            sessionKey: PublicKeyBytes(uncheckedBytes: Array(ephemeral.publicKey.compressedRepresentation)))
        return NearbyRequest(request: request, ephemeral: SendableKey(ephemeral))
    }

    /// Serves `nearby` on `listener` until a payment is verified and its receipt delivered
    /// (then returns after a short linger, so a payer whose link dropped can still resume), or
    /// `options.timeout` passes. Closes the listener when done.
    public func serve(
        _ nearby: NearbyRequest, on listener: any LinkListener,
        progress report: @escaping @Sendable (NearbyReceiveProgress) -> Void = { _ in }
    ) async throws(NearbyReceiveError) -> NearbyReceiveResult {
        // Each step once in a row: the driver reports every byte count that moves, from
        // several links at once when a payer reconnects.
        let last = Mutex<NearbyReceiveProgress?>(nil)
        let progress: @Sendable (NearbyReceiveProgress) -> Void = { event in
            let fresh = last.withLock { l in
                guard l != event else { return false }
                l = event
                return true
            }
            if fresh { report(event) }
        }
        let kept = Mutex<[ReceivedPayment]>([])
        let receiver: NearbyReceiver
        do { receiver = try NearbyReceiver(request: nearby.request, ephemeral: nearby.ephemeral.value, options: options) } catch {
            throw NearbyReceiveError(outcome: .nothingReceived, cause: error)
        }
        let watched = WatchedListener(inner: listener, progress: progress)
        progress(.listening)
        let accept = self.accept
        let refusal = self.refusal
        let result: NearbyReceiver.Result
        do {
            result = try await receiver.serve(
                watched,
                answer: { bundle, transcript in
                    do {
                        let received = try accept(bundle, transcript)
                        kept.withLock { $0.append(received) }
                        progress(.verified(amount: received.amount, paymentID: received.id))
                        return .receipt(received.receipt.encoded)
                    } catch {
                        let (code, message) = refusal(error)
                        progress(.refused(code: code, message: message))
                        return .refuse(code: code, message: message)
                    }
                },
                progress: { p in
                    // The payee writes only its reply: once it writes, the receipt (or the
                    // refusal) is on its way.
                    if p.sent > 0 {
                        if kept.withLock({ !$0.isEmpty }) { progress(.receiptSent) }
                    } else if p.received > 0 {
                        progress(.receiving(bytes: p.received))
                    }
                })
        } catch {
            let payment = kept.withLock { $0.first }
            throw NearbyReceiveError(
                outcome: payment.map { .receivedAndKept(paymentID: $0.id) } ?? .nothingReceived, cause: error)
        }
        // The receipt the session delivered is the one bound to its transcript: a resumed
        // session may have had the same payment's receipt signed again for a new transcript.
        let accepted = kept.withLock { $0 }
        guard let payment = accepted.first(where: { $0.receipt.encoded == result.receipt }) ?? accepted.first else {
            throw NearbyReceiveError(
                outcome: .nothingReceived, cause: .protocolViolation("a receipt went out for no stored payment"))
        }
        return NearbyReceiveResult(
            payment: payment, request: nearby.request, transcriptHash: result.transcriptHash, links: result.links)
    }
}

/// A listener that reports each link a payer opens.
struct WatchedListener: LinkListener {
    let inner: any LinkListener
    let progress: @Sendable (NearbyReceiveProgress) -> Void

    func connections() -> AsyncStream<any LinkConnection> {
        let upstream = inner.connections()
        let progress = progress
        return AsyncStream { continuation in
            let task = Task {
                var links = 0
                for await connection in upstream {
                    links += 1
                    progress(.payerConnected(link: links))
                    continuation.yield(connection)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func close() { inner.close() }
}
