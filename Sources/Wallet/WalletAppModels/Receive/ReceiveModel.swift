import Foundation
import NearbySession
import Observation
import OfflineNotes
import QRPayload
import Synchronization
import WalletCore
import WalletFlows

/// The Receive screen: an optional amount and a description (amount → description → Generate),
/// the request as QR frames (animated when there are several), listening nearby with progress,
/// then the verified incoming payment and, for a payment scanned as QR, the receipt's frames
/// for the payer to scan back.
@Observable
@MainActor
public final class ReceiveModel: FocusableForm {
    /// The form's fields in focus order (APP-SCREENS: amount → description).
    public enum Field: CaseIterable, Hashable, Sendable {
        case amount, description
    }

    /// Where the screen is.
    public enum Phase: Equatable, Sendable {
        /// The form is being filled.
        case editing
        /// The request is being created and stored (off the main actor).
        case generating
        /// The request's code is shown; payers scan it or connect nearby.
        case showingRequest
        /// A payment verified and is in the wallet (`incoming`).
        case received
        /// Something failed; `message` says what and what to do.
        case failed(message: String)
    }

    /// The nearby listener's state, for the "Waiting for the payer…" line.
    public enum Listening: Equatable, Sendable {
        case idle
        case waiting
        case payerConnected(link: Int)
        case receiving(bytes: Int)
        case verified
        /// The payer's payment was refused by this wallet (and the payer told why).
        case refused(message: String)
        case receiptSent
        /// The listener stopped without a payment (timeout, link error); `message` says why.
        case stopped(message: String)
    }

    /// A payment that verified into this wallet.
    public struct Incoming: Equatable, Sendable {
        public let paymentID: Digest32
        public let amount: UInt64
        public let currency: Currency
        /// The key id of the wallet that signed the payment (what the payer's screen shows).
        public let payerKeyID: KeyID?
        /// How it arrived.
        public let method: PaymentMethod
    }

    public let currency: Currency
    public var focus = FormFocus<Field>(initial: .amount)
    /// Empty: an open amount (the payer chooses).
    public var amount: AmountEntry
    /// Shown with the request on this screen and kept with the incoming payment. (The request
    /// on the wire has no description field, docs/protocol.md; only the payee name travels.)
    public var note: String = ""
    /// The name payers see in the request.
    public var payeeName: String
    public private(set) var phase: Phase = .editing
    /// The request once generated.
    public private(set) var request: PaymentRequest?
    /// The request as QR frames; `currentFrame` is the one to draw now.
    public private(set) var requestFrames: [String] = []
    /// Which frame of `requestFrames` is shown; `advanceFrame()` moves it on.
    public private(set) var frameIndex = 0
    public private(set) var listening: Listening = .idle
    /// The payment received, once verified.
    public private(set) var incoming: Incoming?
    /// A payment scanned as QR: its receipt as QR frames for the payer to scan back.
    public private(set) var receiptFrames: [String] = []
    /// Why the last scanned payment was not accepted (the request stays shown).
    public private(set) var scanError: String?
    /// Why the shown request is not offered nearby although this device has a nearby
    /// transport (Bluetooth off, permission refused): payers scan its QR code instead.
    public private(set) var nearbyProblem: String?

    private let wallet: Wallet
    private let hints: [TransportHint]
    private let sessionOptions: SessionOptions
    private let expiresIn: UInt64
    private let frameBytes: Int
    private var nearby: NearbyRequest?
    @ObservationIgnored private var activeListener: (any LinkListener)?
    private let advertiser: (any NearbyAdvertiser)?
    /// The shown request's endpoint listener until `listenNearby()` serves it.
    @ObservationIgnored private var preparedListener: (any LinkListener)?
    /// The generation `submit()` started (Return on the last field), for whoever must wait for it.
    @ObservationIgnored public private(set) var pendingGeneration: Task<Void, Never>?

    /// - Parameters:
    ///   - wallet: the payee's wallet, which creates and stores the requests.
    ///   - currency: the wallet's currency, for the amount entry.
    ///   - payeeName: the name the payer's screen shows.
    ///   - hints: where payers reach this phone nearby (the app's Bluetooth address; a
    ///     simulated or TCP address in tests). The request carries them and a session key.
    ///   - expiresIn: seconds the request stays valid.
    ///   - sessionOptions: the nearby session's timing.
    ///   - frameBytes: message bytes per QR frame (smaller codes scan more easily, more frames).
    ///   - locale: how amounts are typed and shown.
    ///   - advertiser: makes a fresh nearby endpoint for each request (the app's Bluetooth LE);
    ///     its hints go into the request after `hints`, and `listenNearby()` serves it.
    public init(
        wallet: Wallet, currency: Currency, payeeName: String = "", hints: [TransportHint],
        sessionOptions: SessionOptions = SessionOptions(), expiresIn: UInt64 = 600, frameBytes: Int = 600,
        locale: Locale = .current, advertiser: (any NearbyAdvertiser)? = nil
    ) {
        self.advertiser = advertiser
        self.frameBytes = frameBytes
        self.wallet = wallet
        self.currency = currency
        self.payeeName = payeeName
        self.hints = hints
        self.sessionOptions = sessionOptions
        self.expiresIn = expiresIn
        self.amount = AmountEntry(currency: currency, locale: locale)
    }

    // MARK: The form

    /// The sheet appeared: the amount field takes focus.
    public func appear() { focus.appear() }

    /// Whether Generate is enabled: an empty amount is an open one; any other must parse.
    public var canGenerate: Bool {
        guard phase != .generating else { return false }
        return amount.text.isEmpty || amount.minorUnits != nil
    }

    /// The last field's Return and the Generate button: creates the request.
    public func submit() {
        guard canGenerate else {
            focus.focus(.amount)
            return
        }
        pendingGeneration = Task { await generate() }
    }

    /// Creates and stores the request (with a fresh nearby session key) and shows its frames.
    public func generate() async {
        guard canGenerate else {
            focus.focus(.amount)
            return
        }
        focus.clearFocus()
        phase = .generating
        let value = amount.text.isEmpty ? 0 : (amount.minorUnits ?? 0)
        let flow = NearbyReceiveFlow(wallet: wallet, options: sessionOptions, method: SendModel.nearbyMethod)
        // Each request gets its own endpoint (a fresh Bluetooth LE session service), so a payer
        // holding an older request cannot reach this one by mistake.
        closePreparedListener()
        var hints = self.hints
        var endpoint: NearbyEndpoint?
        nearbyProblem = nil
        if let advertiser {
            do {
                let prepared = try advertiser.prepareReceive(keyID: wallet.publicKey.keyID.hex, payeeName: payeeName)
                endpoint = prepared
                hints += prepared.hints
            } catch {
                nearbyProblem = ErrorText.message(error)
            }
        }
        switch await Self.create(flow, amount: value, payeeName: payeeName, expiresIn: expiresIn, hints: hints) {
        case .failure(let error):
            endpoint?.listener.close()
            phase = .failed(
                message: localized("receive.createFailed", "The request could not be created: %@", ErrorText.message(error)))
        case .success(let made):
            do {
                requestFrames = try QRFrames.encode(made.request.encoded, chunkSize: frameBytes)
            } catch {
                endpoint?.listener.close()
                phase = .failed(
                    message: localized(
                        "receive.tooLargeForQR", "The request does not fit in QR codes (%@). Shorten the name.",
                        ErrorText.message(error)))
                return
            }
            preparedListener = endpoint?.listener
            nearby = made
            request = made.request
            frameIndex = 0
            incoming = nil
            receiptFrames = []
            scanError = nil
            listening = .idle
            phase = .showingRequest
        }
    }

    /// "Regenerate" / back to the form: the old request is dropped from the screen.
    public func edit() {
        closePreparedListener()
        phase = .editing
        request = nil
        nearby = nil
        requestFrames = []
        frameIndex = 0
        focus.appear()
    }

    /// The frame to draw now.
    public var currentFrame: String? { requestFrames.isEmpty ? nil : requestFrames[frameIndex % requestFrames.count] }

    /// Whether the code animates (several frames).
    public var isAnimated: Bool { requestFrames.count > 1 }

    /// The display's timer: the next frame, cycling; nothing to do with one frame.
    public func advanceFrame() {
        guard requestFrames.count > 1 else { return }
        frameIndex = (frameIndex + 1) % requestFrames.count
    }

    // MARK: Receiving

    /// Serves the shown request on the endpoint the app's `NearbyAdvertiser` prepared for it
    /// (advertising it until a payer pays, the timeout passes, or `stopListening()`), as
    /// `listen(on:)` does. Without one (no advertiser, or `nearbyProblem`), `listening` says
    /// the request is paid by QR.
    public func listenNearby() async {
        guard phase == .showingRequest, nearby != nil else { return }
        guard let listener = preparedListener else {
            listening = .stopped(
                message: nearbyProblem
                    ?? localized("receive.notNearby", "This request is not offered nearby: the payer scans its QR code."))
            return
        }
        // Served once: the session closes the listener when it ends.
        preparedListener = nil
        await listen(on: listener)
    }

    /// Serves the request on `listener` (Bluetooth LE in the app) until a payer pays it and
    /// gets the receipt, or the session's timeout passes. Progress goes to `listening`.
    public func listen(on listener: any LinkListener) async {
        guard phase == .showingRequest, let nearby else { return }
        listening = .waiting
        activeListener = listener
        defer { activeListener = nil }
        let payers = Mutex<[Digest32: KeyID]>([:])
        let wallet = self.wallet
        let flow = NearbyReceiveFlow(
            wallet: wallet, options: sessionOptions,
            accept: { bundle, transcript in
                let received = try wallet.receive(bundle, method: SendModel.nearbyMethod, transcriptHash: transcript)
                if let key = Self.payerKeyID(of: bundle) { payers.withLock { $0[received.id] = key } }
                return received
            })
        let (events, sink) = AsyncStream.makeStream(of: NearbyReceiveProgress.self)
        let watcher = Task { @MainActor [weak self] in
            for await event in events { self?.progressed(event) }
        }
        let outcome = await Self.serve(flow, nearby, on: listener) { sink.yield($0) }
        sink.finish()
        await watcher.value
        switch outcome {
        case .success(let result):
            let p = result.payment
            incoming = Incoming(
                paymentID: p.id, amount: p.amount, currency: p.currency, payerKeyID: payers.withLock { $0[p.id] },
                method: SendModel.nearbyMethod)
            listening = .receiptSent
            phase = .received
        case .failure(let error):
            // A payment verified and kept before the link failed shows in the wallet's
            // snapshots and history; the message says so.
            listening = .stopped(message: ErrorText.message(error))
        }
    }

    /// A payment the payer showed as QR (ScanAssembler's `.receive`): verified and stored by
    /// the wallet, which finds the request from the payment; then the receipt's frames are
    /// shown for the payer to scan back.
    public func receiveScanned(_ bundle: PaymentBundle) async {
        let bytes = bundle.encoded
        do {
            let received = try await AsyncWallet(wallet).receive(bytes, method: .qr)
            receiptFrames = try QRFrames.encode(received.receipt.encoded, chunkSize: frameBytes)
            incoming = Incoming(
                paymentID: received.id, amount: received.amount, currency: received.currency,
                payerKeyID: Self.payerKeyID(of: bytes), method: .qr)
            scanError = nil
            phase = .received
            // Paid by QR: nobody else will pay this request nearby.
            stopListening()
        } catch let error as WalletError {
            scanError = localized("receive.paymentRefused", "This payment was not accepted: %@", ErrorText.message(error))
        } catch {
            scanError = localized(
                "receive.receiptTooLarge", "The receipt could not be shown as QR codes (%@). The payment is in the wallet.",
                ErrorText.message(error))
        }
    }

    /// Closes the nearby listener (the screen closed, or the request was paid another way);
    /// `listen(on:)` then returns.
    public func stopListening() {
        activeListener?.close()
        activeListener = nil
        closePreparedListener()
    }

    /// Stops advertising an endpoint nobody served (a new request, the form again, the screen closed).
    private func closePreparedListener() {
        preparedListener?.close()
        preparedListener = nil
    }

    private func progressed(_ event: NearbyReceiveProgress) {
        switch event {
        case .listening: listening = .waiting
        case .payerConnected(let link): listening = .payerConnected(link: link)
        case .receiving(let bytes): listening = .receiving(bytes: bytes)
        case .verified: listening = .verified
        case .refused(_, let message): listening = .refused(message: message)
        case .receiptSent: listening = .receiptSent
        }
    }

    /// The key id of the wallet that signed the payment's last transfer.
    nonisolated static func payerKeyID(of bundle: [UInt8]) -> KeyID? {
        (try? PaymentBundle(decoding: bundle))?.chains.first?.transfers.last?.signerKeyID
    }

    @concurrent
    private nonisolated static func create(
        _ flow: NearbyReceiveFlow, amount: UInt64, payeeName: String, expiresIn: UInt64, hints: [TransportHint]
    ) async -> Result<NearbyRequest, WalletError> {
        Result { () throws(WalletError) in
            try flow.createRequest(amount: amount, payeeName: payeeName, expiresIn: expiresIn, hints: hints)
        }
    }

    @concurrent
    private nonisolated static func serve(
        _ flow: NearbyReceiveFlow, _ nearby: NearbyRequest, on listener: any LinkListener,
        progress: @escaping @Sendable (NearbyReceiveProgress) -> Void
    ) async -> Result<NearbyReceiveResult, NearbyReceiveError> {
        do { return .success(try await flow.serve(nearby, on: listener, progress: progress)) } catch { return .failure(error) }
    }
}
