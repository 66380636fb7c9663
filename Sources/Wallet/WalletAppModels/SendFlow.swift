import NearbySession
import OfflineNotes
import WalletCore
import WalletFlows

/// Where a payment on the Send screen is, in the order it happens.
public enum SendPhase: Equatable, Sendable {
    /// The form is being filled.
    case editing
    /// The confirmation card is shown; Send starts the payment.
    case confirming(SendModel.Summary)
    /// The wallet is selecting notes and signing (off the main actor).
    case signing
    /// Online: the transfer is with the issuer.
    case contactingServer
    /// Bluetooth: `sent` of the session's `total` bytes are out; rises frame by frame.
    case sending(sent: Int, total: Int)
    /// Bluetooth: every byte is out, the payee verifies. QR: the payment's frames are shown
    /// (`SendModel.paymentFrames`) until the payee's receipt is scanned back.
    case waitingForReceipt
    /// Done: the receipt is verified (offline) or the issuer moved the money (online).
    case paid(amount: UInt64)
    /// It failed; `message` says what happened and what to do. `canTryAgain`: "Try again"
    /// resends the same signed bytes (offline) — never a second payment.
    case failed(message: String, canTryAgain: Bool)

    /// Whether a payment is under way (the sheet cannot be dismissed, Send is disabled).
    public var isBusy: Bool {
        switch self {
        case .signing, .contactingServer, .sending, .waitingForReceipt: true
        case .editing, .confirming, .paid, .failed: false
        }
    }
}

/// What the Send screen pays with: the wallet for offline payments, the logged-in session for
/// online ones, and the nearby transport (Bluetooth LE in the app, a simulated link in tests).
public struct SendServices: Sendable {
    public var wallet: Wallet
    public var session: WalletSession?
    /// Links for a nearby payment when neither a picked device nor the browser reaches the payee.
    public var dialer: (any LinkDialer)?
    public var sessionOptions: SessionOptions
    /// Reaches the payee a scanned request names in its transport hint (Bluetooth LE in the app).
    public var nearbyBrowser: (any NearbyBrowser)?

    public init(
        wallet: Wallet, session: WalletSession? = nil, dialer: (any LinkDialer)? = nil, sessionOptions: SessionOptions = SessionOptions(),
        nearbyBrowser: (any NearbyBrowser)? = nil
    ) {
        self.wallet = wallet
        self.session = session
        self.dialer = dialer
        self.sessionOptions = sessionOptions
        self.nearbyBrowser = nearbyBrowser
    }

    /// The links a nearby payment of `request` goes over: the device picked on the Nearby
    /// devices sheet, else the payee the request's hint names (when the browser understands
    /// it), else `dialer`.
    func nearbyDialer(for request: PaymentRequest, picked: (any LinkDialer)?) -> (any LinkDialer)? {
        picked ?? nearbyBrowser?.dialer(for: request) ?? dialer
    }
}

/// The sentences a person sees when a payment fails. The engine's own messages already say
/// what to do; these add what became of the payment (nothing signed, or signed and kept).
enum SendFailure {
    static func message(for error: WalletError) -> String {
        switch error {
        case .insufficientFunds(let available, let requested, let currency):
            "Insufficient balance: \(Amount.format(requested, currency: currency)) \(currency) needed, \(Amount.format(available, currency: currency)) available offline. Buy notes or sync, then try again."
        case .requestExpired: "The payment request has expired. Ask the payee to show a new one."
        case .rejected(.wrongCurrency(let held, let requested)):
            "The request is in \(requested) and this wallet holds \(held): it is for another wallet's currency. Ask the payee for a request in \(held)."
        default: error.description
        }
    }

    static func message(for error: NearbyPayError) -> String {
        let kept = " The payment is signed and kept: Try again resends exactly the same payment, never a second one."
        switch (error.outcome, error.cause) {
        case (_, .wallet(let e)):
            if case .signedAndKept = error.outcome { return message(for: e) + kept }
            return message(for: e) + " Nothing was paid."
        case (_, .session(.refused(_, let why))):
            return "The payee's wallet refused the payment: \(why) Nothing was paid; ask the payee for a new request."
        case (.signedAndKept, .session(let e)):
            return "The connection to the payee failed (\(e.description))." + kept
        default:
            return error.description
        }
    }
}
