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
        wallet: Wallet, session: WalletSession? = nil, dialer: (any LinkDialer)? = nil,
        sessionOptions: SessionOptions = SessionOptions(),
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
            localized(
                "send.insufficient",
                "Insufficient balance: %1$@ needed, %2$@ available offline. Buy notes or sync, then try again.",
                MoneyText.text(requested, currency: currency), MoneyText.text(available, currency: currency))
        case .requestExpired:
            localized("send.requestExpired", "The payment request has expired. Ask the payee to show a new one.")
        case .rejected(.wrongCurrency(let held, let requested)):
            localized(
                "send.wrongCurrency",
                "The request is in %1$@ and this wallet holds %2$@: it is for another wallet's currency. Ask the payee for a request in %2$@.",
                requested.code, held.code)
        default: ErrorText.wallet(error)
        }
    }

    static func message(for error: NearbyPayError) -> String {
        switch (error.outcome, error.cause) {
        case (.signedAndKept, .wallet(let e)):
            localized(
                "send.failedKept",
                "%@ The payment is signed and kept: Try again resends exactly the same payment, never a second one.",
                message(for: e))
        case (_, .wallet(let e)):
            localized("send.failedNothingPaid", "%@ Nothing was paid.", message(for: e))
        case (_, .session(.refused(_, let why))):
            localized(
                "send.refusedByPayee",
                "The payee's wallet refused the payment: %@ Nothing was paid; ask the payee for a new request.", why)
        case (.signedAndKept, .session(let e)):
            localized(
                "send.connectionFailedKept",
                "The connection to the payee failed (%@). The payment is signed and kept: Try again resends exactly the same payment, never a second one.",
                e.description)
        case (.nothingSigned, .session(let e)):
            localized("send.connectionFailed", "The connection to the payee failed (%@). Nothing was paid.", e.description)
        case (_, .payeeMismatch(let expected, let found)):
            localized(
                "send.payeeMismatch", "The request at that address is for key %1$@, not %2$@. Nothing was paid.", "\(found)",
                expected)
        case (_, .payeeKeyRequired):
            localized("send.payeeKeyRequired", "The payee's whole key id is needed to pay an address. Nothing was paid.")
        }
    }
}
