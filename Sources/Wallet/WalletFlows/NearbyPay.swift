import NearbySession
import OfflineNotes
import Synchronization
import WalletCore

/// What a nearby payment is doing, in the order it happens, for a progress screen.
public enum NearbyProgress: Sendable, Equatable {
    /// Asking a listener found by address for its request (docs/protocol.md §12.7).
    case fetchingRequest
    /// The payment is signed and stored; from here on a failure keeps it for resending.
    case signed(paymentID: Digest32, bytes: Int)
    /// Opening the first link to the payee.
    case connecting
    /// The link is open; the session keys are being agreed (the payer's hello is on its way).
    case handshake
    /// `sent` of the session's `total` bytes (the hello and the sealed payment) are written to
    /// the link; rises frame by frame.
    case sending(sent: Int, total: Int)
    /// Every byte is out; the payee's wallet verifies the payment and answers. (The payee's
    /// acknowledgement of the last bytes travels with its reply, docs/protocol.md §12.4, so
    /// "delivered" and "answered" arrive together.)
    case waitingForReceipt
    /// A dropped link was replaced by link number `link` (2, 3, …) and the session continued
    /// with the same signed bytes.
    case resumed(link: Int)
    /// The payee's receipt is verified and recorded: the payment is complete.
    case paid
}

/// The outcome of a completed nearby payment.
public struct NearbyPayResult: Sendable {
    /// The payment, now `completed`, with the payee's receipt.
    public let payment: OutgoingPayment
    /// The signed bytes that went over the link (the same on every retry).
    public var bundle: [UInt8] { payment.bundle }
    /// The session the receipt is bound to.
    public let transcriptHash: Digest32
    /// Links opened after the first one.
    public let reconnects: Int
    /// Sessions started afresh because the payee no longer knew the old one.
    public let restarts: Int
}

/// Why a nearby payment failed, and — what the person paying needs first — whether anything
/// was signed.
public struct NearbyPayError: Error, Sendable, CustomStringConvertible {
    public enum Outcome: Sendable, Equatable {
        /// Nothing was signed: nothing left the wallet, nothing is reserved.
        case nothingSigned
        /// The payment was signed and stored; paying the same request again resends exactly
        /// these bytes (the wallet never signs twice for one request).
        case signedAndKept(paymentID: Digest32)
    }

    public enum Cause: Sendable {
        /// The wallet refused to sign or to record the receipt (funds, limits, expiry, …).
        case wallet(WalletError)
        /// The session failed: link, timeout, the payee's refusal, a receipt not bound to it.
        case session(NearbyError)
        /// A request fetched by address needs the payee's key id to check it against.
        case payeeKeyRequired
        /// The request at the address is for another key than the one the payee showed.
        case payeeMismatch(expected: String, found: KeyID)
    }

    public let outcome: Outcome
    public let cause: Cause

    public init(_ outcome: Outcome, _ cause: Cause) {
        self.outcome = outcome
        self.cause = cause
    }

    /// The underlying wallet or session error, for clients that map those to their own codes.
    public var underlying: (any Error)? {
        switch cause {
        case .wallet(let e): e
        case .session(let e): e
        case .payeeKeyRequired, .payeeMismatch: nil
        }
    }

    /// Whether "try again" makes sense: it resends the same signed bytes. Not after the payee
    /// refused them (it would refuse again), and not when nothing was signed and the wallet
    /// itself said no.
    public var canTryAgain: Bool {
        switch (outcome, cause) {
        case (_, .session(.refused)): false
        case (.signedAndKept, _): true
        case (.nothingSigned, .session): true
        case (.nothingSigned, _): false
        }
    }

    /// What went wrong, without the outcome sentence (clients word that themselves).
    public var reason: String {
        switch cause {
        case .wallet(let e): e.description
        case .session(let e): e.description
        case .payeeKeyRequired:
            "Paying an address needs --payee with the payee's whole key id (the 16 hex digits its screen shows): a request fetched from the network could come from anyone, and a shorter prefix can be matched by a key made for it."
        case .payeeMismatch(let expected, let found): "The request at that address is for key \(found), not \(expected)."
        }
    }

    public var description: String {
        switch outcome {
        case .nothingSigned: "\(reason) Nothing was signed; nothing left this wallet."
        case .signedAndKept: "\(reason) The payment was signed and kept: paying the same request again resends the same bytes."
        }
    }
}

/// The payer's side of a nearby payment as one library call: sign (or take back the bytes
/// already signed for this request), run the session over any link, confirm the receipt.
///
/// The steps are public too, so a client that must do something between them (the command
/// line releases its wallet lock while the devices talk) composes the same calls.
///
/// ## Example
///
/// ```swift
/// let flow = NearbyPayFlow(wallet: wallet)
/// do {
///     let result = try await flow.pay(scannedRequest, dialer: dialer) { step in print(step) }
///     print("paid", result.payment.amount)
/// } catch {
///     print(error)   // says whether anything was signed
///     if error.canTryAgain { /* paying again resends the same signed bytes */ }
/// }
/// ```
public struct NearbyPayFlow: Sendable {
    public let wallet: Wallet
    public let options: SessionOptions
    /// What the wallet's history calls the payment: the link the client runs the session on
    /// (`.tcp` for the command line, `.bluetooth` for the app).
    public let method: PaymentMethod

    public init(wallet: Wallet, options: SessionOptions = SessionOptions(), method: PaymentMethod = .tcp) {
        self.wallet = wallet
        self.options = options
        self.method = method
    }

    /// Pays a scanned request over `dialer` and returns once the receipt is recorded.
    /// - Parameters:
    ///   - request: the payee's request, as scanned; it must offer a nearby session.
    ///   - amount: for an open-amount request; otherwise nil or the request's amount.
    ///   - dialer: opens links to the payee (again after a drop: the session resumes).
    ///   - progress: each step once, in order, for a progress screen.
    public func pay(
        _ request: PaymentRequest, amount: UInt64? = nil, dialer: any LinkDialer,
        progress: @escaping @Sendable (NearbyProgress) -> Void = { _ in }
    ) async throws(NearbyPayError) -> NearbyPayResult {
        let payment = try sign(request, amount: amount)
        progress(.signed(paymentID: payment.id, bytes: payment.bundle.count))
        let session = try await send(payment, dialer: dialer, progress: progress)
        let done = try confirm(payment, session: session)
        progress(.paid)
        return done
    }

    /// Pays the payee listening behind `dialer` (an address, not a scanned request): fetches
    /// its request and pays it only if its key id is `payee`, the whole key id the payee's
    /// screen shows (`expectedPayee`). A mismatch is refused before anything is signed.
    /// Fetching the request is part of the payment, so it is bounded by the same
    /// `options.timeout`.
    public func pay(
        listenerAt dialer: any LinkDialer, payee: String?, amount: UInt64? = nil,
        progress: @escaping @Sendable (NearbyProgress) -> Void = { _ in }
    ) async throws(NearbyPayError) -> NearbyPayResult {
        let expected = try Self.expectedPayee(payee)
        progress(.fetchingRequest)
        let request = try await Self.fetchRequest(from: dialer, payee: expected, timeout: options.timeout)
        return try await pay(request, amount: amount, dialer: dialer, progress: progress)
    }

    /// Checks the key id a person typed for `pay(listenerAt:)`: the whole key id (16 hex
    /// digits, as the payee's screen shows it) or the whole key (66). Returns it lowercased.
    ///
    /// Not a prefix: whoever answers at the address chooses the request's key, and making P-256
    /// keys until one's id starts with given digits takes about 2^(4·digits) tries, which for 8
    /// digits (32 bits) is minutes of a laptop's time. The whole id is 64 bits.
    public static func expectedPayee(_ text: String?) throws(NearbyPayError) -> String {
        guard let expected = text?.lowercased(), expected.allSatisfy({ $0.isASCII && $0.isHexDigit }),
            [KeyID.byteCount * 2, PublicKeyBytes.byteCount * 2].contains(expected.count)
        else {
            throw NearbyPayError(.nothingSigned, .payeeKeyRequired)
        }
        return expected
    }

    /// The key-id match rule: `expected` (lowercase hex) matches `key` when it is the whole key
    /// in hex or a prefix of the key id. `expectedPayee` only lets whole key ids through; a
    /// Bluetooth advertisement carries the id's first 8 digits (`payee(_:matchesText:)`).
    public static func payee(_ key: PublicKeyBytes, matches expected: String) -> Bool {
        key.hex == expected || key.keyID.hex.hasPrefix(expected)
    }

    /// `payee(_:matches:)` for a key id as a nearby payee's phone advertises it (the app's nearby
    /// devices list): at least its first 8 hex digits, which is all a Bluetooth LE advertisement
    /// is sure to carry. False when the text is not that, so an unreadable advertisement never
    /// matches. This only pairs an advertisement with the request its device hands out; the
    /// person still compares the request's whole key id with the payee's screen.
    public static func payee(_ key: PublicKeyBytes, matchesText text: String?) -> Bool {
        guard let expected = advertisedKeyID(text) else { return false }
        return payee(key, matches: expected)
    }

    /// `text` lowercased when it is at least 8 hex digits (a key id as advertised, or longer).
    private static func advertisedKeyID(_ text: String?) -> String? {
        guard let text = text?.lowercased(), text.count >= 8, text.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
        return text
    }

    /// Asks a listener for its request (§12.7) and keeps it only if it is for `payee`: a key
    /// id as `pay(listenerAt:)` takes it (`expectedPayee`: the whole id), or as a nearby phone
    /// advertises it (its first 8+ hex digits, `payee(_:matchesText:)`), or the whole key. The
    /// network is not the payee's screen. `timeout` bounds the fetch: the caller's payment
    /// timeout, since fetching the request is part of paying.
    public static func fetchRequest(
        from dialer: any LinkDialer, payee: String?, timeout: Duration
    ) async throws(NearbyPayError) -> PaymentRequest {
        guard let expected = advertisedKeyID(payee) else { throw NearbyPayError(.nothingSigned, .payeeKeyRequired) }
        let request: PaymentRequest
        do { request = try await NearbyPayment.fetchRequest(from: dialer, timeout: timeout) } catch {
            throw NearbyPayError(.nothingSigned, .session(error))
        }
        guard Self.payee(request.payee, matches: expected) else {
            throw NearbyPayError(.nothingSigned, .payeeMismatch(expected: expected, found: request.payee.keyID))
        }
        return request
    }

    /// Signs the payment for `request` and stores it (or returns the bytes already signed for
    /// it: the wallet is idempotent per request). Fails with nothing signed.
    public func sign(_ request: PaymentRequest, amount: UInt64? = nil) throws(NearbyPayError) -> OutgoingPayment {
        guard request.sessionKey != nil else {
            throw NearbyPayError(.nothingSigned, .session(.notNearbyRequest("it carries no session key")))
        }
        do { return try wallet.pay(request, amount: amount, method: method) } catch {
            throw NearbyPayError(.nothingSigned, .wallet(error))
        }
    }

    /// Runs the session for a signed payment and returns the payee's answer, reconnecting and
    /// resuming after dropped links. Does not touch the wallet, so a client may let other
    /// work use the wallet meanwhile. Fails with the payment signed and kept.
    public func send(
        _ payment: OutgoingPayment, dialer: any LinkDialer, progress: @escaping @Sendable (NearbyProgress) -> Void = { _ in }
    ) async throws(NearbyPayError) -> NearbyPayment.Result {
        let reporter = PayProgressReporter(progress)
        let watched = WatchedDialer(inner: dialer, reporter: reporter)
        do {
            return try await NearbyPayment.pay(
                request: payment.request, bundle: payment.bundle, dialer: watched, options: options,
                progress: { reporter.session($0) })
        } catch {
            throw NearbyPayError(.signedAndKept(paymentID: payment.id), .session(error))
        }
    }

    /// Verifies the receipt the session brought back and records the payment as completed.
    public func confirm(_ payment: OutgoingPayment, session: NearbyPayment.Result) throws(NearbyPayError) -> NearbyPayResult {
        do {
            let done = try wallet.confirm(receipt: session.receipt)
            return NearbyPayResult(
                payment: done, transcriptHash: session.transcriptHash, reconnects: session.reconnects, restarts: session.restarts)
        } catch {
            throw NearbyPayError(.signedAndKept(paymentID: payment.id), .wallet(error))
        }
    }
}

/// Turns link openings and the driver's byte counts into `NearbyProgress`, each event once in
/// a row (the driver reports every change; a screen needs the steps).
final class PayProgressReporter: Sendable {
    private struct State {
        var links = 0
        var last: NearbyProgress?
    }
    private let sink: @Sendable (NearbyProgress) -> Void
    private let state = Mutex(State())

    init(_ sink: @escaping @Sendable (NearbyProgress) -> Void) { self.sink = sink }

    func emit(_ event: NearbyProgress) {
        let fresh = state.withLock { s in
            guard s.last != event else { return false }
            s.last = event
            return true
        }
        if fresh { sink(event) }
    }

    func dialing() {
        if state.withLock({ $0.links }) == 0 { emit(.connecting) }
    }

    func connected() {
        let links = state.withLock { s in
            s.links += 1
            return s.links
        }
        emit(links == 1 ? .handshake : .resumed(link: links))
    }

    func session(_ p: SessionProgress) {
        guard p.sent > 0 else { return }
        emit(p.written < p.sent ? .sending(sent: p.written, total: p.sent) : .waitingForReceipt)
    }
}

/// A dialer that tells the reporter when links open: the session driver reconnects on its own.
struct WatchedDialer: LinkDialer {
    let inner: any LinkDialer
    let reporter: PayProgressReporter

    func connect() async throws -> any LinkConnection {
        reporter.dialing()
        let connection = try await inner.connect()
        reporter.connected()
        return connection
    }
}
