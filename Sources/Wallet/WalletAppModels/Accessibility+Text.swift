import Foundation
import OfflineNotes

// What VoiceOver says about the screens that change on their own: the animated QR codes, the
// scanner's progress, and the nearby payment's progress on both phones. The views post these
// as announcements when they change (`onChange`), or show them as an element's value, so every
// text is a sentence that stands on its own, and it changes only when a person should hear
// something new: at a stage of a payment, never at each byte or frame.

extension SendModel {
    /// The payment's stage as VoiceOver announces it ("Connecting to the payee's phone.",
    /// "Paid 12.50 Euro."); the Send screen posts it whenever it changes. Nil while editing or
    /// confirming: nothing is under way.
    public var progressAnnouncement: String? {
        Self.progressAnnouncement(for: phase, method: method, currency: currency)
    }

    /// The announcement for `phase` (see `progressAnnouncement`). A Bluetooth payment is
    /// connecting until its first bytes are out, then sending: the byte count is never part of
    /// the text, so the text changes once per stage.
    public static func progressAnnouncement(
        for phase: SendPhase, method: SendMethod, currency: Currency, locale: Locale = .current
    ) -> String? {
        switch phase {
        case .editing, .confirming: nil
        case .signing: "Signing the payment."
        case .contactingServer: "Sending the payment through the issuer."
        case .sending(let sent, _): sent == 0 ? "Connecting to the payee's phone." : "Sending the payment to the payee's phone."
        case .waitingForReceipt:
            method == .qr
                ? "Payment signed. Show the codes to the payee, then scan the receipt on their screen."
                : "Payment sent. Waiting for the payee's receipt."
        case .paid(let amount): "Paid \(MoneyText.spoken(amount, currency: currency, locale: locale))."
        case .failed(let message, _): "The payment failed. \(message)"
        }
    }

    /// VoiceOver's value for the payment's code while the screen cycles through its `count`
    /// frames and shows the one at `index` (see `ReceiveModel.requestCodeAccessibilityValue`).
    public static func paymentCodeAccessibilityValue(showing index: Int, of count: Int) -> String {
        codeAccessibilityValue(showing: index, of: count, reader: "the payee's camera")
    }
}

extension ReceiveModel {
    /// VoiceOver's value for the request's code: which part shows and what to do ("Showing
    /// part 3 of 8. Hold the screen up to the payer's camera until it has read every part.").
    /// An element's value, not an announcement: it follows the frames without interrupting
    /// four times a second. Nil before a request exists.
    public var requestCodeAccessibilityValue: String? {
        guard !requestFrames.isEmpty else { return nil }
        return codeAccessibilityValue(showing: frameIndex, of: requestFrames.count, reader: "the payer's camera")
    }

    /// VoiceOver's value for the receipt's code, which the screen cycles through itself (see
    /// `requestCodeAccessibilityValue`).
    public static func receiptCodeAccessibilityValue(showing index: Int, of count: Int) -> String {
        codeAccessibilityValue(showing: index, of: count, reader: "the payer's camera")
    }

    /// The nearby listener's stage as VoiceOver announces it ("A payer's phone connected.");
    /// the Receive screen posts it whenever it changes. Nil before listening started.
    public var listeningAnnouncement: String? { Self.listeningAnnouncement(for: listening) }

    /// The announcement for `listening` (see `listeningAnnouncement`): the bytes received are
    /// never part of the text, so it changes once per stage.
    public static func listeningAnnouncement(for listening: Listening) -> String? {
        switch listening {
        case .idle: nil
        case .waiting: "Waiting for a payer nearby."
        case .payerConnected: "A payer's phone connected."
        case .receiving: "Receiving the payment."
        case .verified: "Payment verified. Sending the receipt."
        case .refused(let message): "The payment was refused: \(message)"
        case .receiptSent: "Receipt sent to the payer."
        case .stopped(let message): "Stopped listening nearby: \(message)"
        }
    }
}

extension ScanProgress {
    /// The parts read so far as VoiceOver says them: "3 of 8 parts received."
    public var accessibilityText: String {
        expected == 1 ? "The code's one part received." : "\(received) of \(expected) parts received."
    }
}

extension ScanAssembler {
    /// The scanner's progress as VoiceOver announces it at each new part ("3 of 8 parts
    /// received."); nil before the first part.
    public var progressAnnouncement: String? { progress?.accessibilityText }
}

extension NearbyDevicesModel {
    /// The search as VoiceOver announces it when it changes ("2 wallets found nearby."); nil
    /// when not searching.
    public var searchAnnouncement: String? {
        switch state {
        case .idle: nil
        case .searching: "Searching for nearby wallets."
        case .found(let devices): devices.count == 1 ? "1 wallet found nearby." : "\(devices.count) wallets found nearby."
        case .nothingFound: "No wallets found nearby yet. The search goes on."
        case .failed(let message): "The search failed. \(message)"
        }
    }

    /// Picking a device as VoiceOver announces it: connecting to it, ready to pay it, or why
    /// not. Nil when nothing was picked.
    public var pickAnnouncement: String? { Self.pickAnnouncement(for: pick) }

    /// The announcement for `pick` (see `pickAnnouncement`).
    public static func pickAnnouncement(for pick: Pick) -> String? {
        switch pick {
        case .none: nil
        case .fetchingRequest(let peer): "Connecting to \(spokenName(peer)) for its request."
        case .handedToSend(let peer): "Connected. Ready to pay \(spokenName(peer)) by Bluetooth."
        case .failed(let message): "This device cannot be paid. \(message)"
        }
    }

    private static func spokenName(_ peer: NearbyPeer) -> String { peer.name.isEmpty ? "the device" : peer.name }
}

/// The value of an animated (or single) code: the part on screen, and who reads it.
private func codeAccessibilityValue(showing index: Int, of count: Int, reader: String) -> String {
    guard count > 1 else { return "Hold the screen up to \(reader)." }
    return "Showing part \(index % count + 1) of \(count). Hold the screen up to \(reader) until it has read every part."
}
