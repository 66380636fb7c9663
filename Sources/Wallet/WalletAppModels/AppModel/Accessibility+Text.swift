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
        for phase: SendPhase, method: SendMethod, currency: Currency
    ) -> String? {
        switch phase {
        case .editing, .confirming: nil
        case .signing: localized("a11y.send.signing", "Signing the payment.")
        case .contactingServer: localized("a11y.send.contactingIssuer", "Sending the payment through the issuer.")
        case .sending(let sent, _):
            sent == 0
                ? localized("a11y.send.connecting", "Connecting to the payee's phone.")
                : localized("a11y.send.sending", "Sending the payment to the payee's phone.")
        case .waitingForReceipt:
            method == .qr
                ? localized(
                    "a11y.send.showCodes", "Payment signed. Show the codes to the payee, then scan the receipt on their screen.")
                : localized("a11y.send.waitingForReceipt", "Payment sent. Waiting for the payee's receipt.")
        case .paid(let amount): localized("a11y.send.paid", "Paid %@.", MoneyText.spoken(amount, currency: currency))
        case .failed(let message, _): localized("a11y.send.failed", "The payment failed. %@", message)
        }
    }

    /// VoiceOver's value for the payment's code while the screen cycles through its `count`
    /// frames and shows the one at `index` (see `ReceiveModel.requestCodeAccessibilityValue`).
    public static func paymentCodeAccessibilityValue(showing index: Int, of count: Int) -> String {
        codeAccessibilityValue(showing: index, of: count, reader: .payee)
    }
}

extension ReceiveModel {
    /// VoiceOver's value for the request's code: which part shows and what to do ("Showing
    /// part 3 of 8. Hold the screen up to the payer's camera until it has read every part.").
    /// An element's value, not an announcement: it follows the frames without interrupting
    /// four times a second. Nil before a request exists.
    public var requestCodeAccessibilityValue: String? {
        guard !requestFrames.isEmpty else { return nil }
        return codeAccessibilityValue(showing: frameIndex, of: requestFrames.count, reader: .payer)
    }

    /// VoiceOver's value for the receipt's code, which the screen cycles through itself (see
    /// `requestCodeAccessibilityValue`).
    public static func receiptCodeAccessibilityValue(showing index: Int, of count: Int) -> String {
        codeAccessibilityValue(showing: index, of: count, reader: .payer)
    }

    /// The nearby listener's stage as VoiceOver announces it ("A payer's phone connected.");
    /// the Receive screen posts it whenever it changes. Nil before listening started.
    public var listeningAnnouncement: String? { Self.listeningAnnouncement(for: listening) }

    /// The announcement for `listening` (see `listeningAnnouncement`): the bytes received are
    /// never part of the text, so it changes once per stage.
    public static func listeningAnnouncement(for listening: Listening) -> String? {
        switch listening {
        case .idle: nil
        case .waiting: localized("a11y.receive.waiting", "Waiting for a payer nearby.")
        case .payerConnected: localized("a11y.receive.payerConnected", "A payer's phone connected.")
        case .receiving: localized("a11y.receive.receiving", "Receiving the payment.")
        case .verified: localized("a11y.receive.verified", "Payment verified. Sending the receipt.")
        case .refused(let message): localized("a11y.receive.refused", "The payment was refused: %@", message)
        case .receiptSent: localized("a11y.receive.receiptSent", "Receipt sent to the payer.")
        case .stopped(let message): localized("a11y.receive.stopped", "Stopped listening nearby: %@", message)
        }
    }
}

extension ScanProgress {
    /// The parts read so far as VoiceOver says them: "3 of 8 parts received."
    public var accessibilityText: String {
        expected == 1
            ? localized("a11y.scan.onePart", "The code's one part received.")
            : localized("a11y.scan.parts", "%1$@ of %2$@ parts received.", String(received), String(expected))
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
        case .searching: localized("a11y.nearby.searching", "Searching for nearby wallets.")
        case .found(let devices):
            localized(
                "a11y.nearby.found", count: devices.count, one: "%lld wallet found nearby.", other: "%lld wallets found nearby.")
        case .nothingFound: localized("a11y.nearby.nothingFound", "No wallets found nearby yet. The search goes on.")
        case .failed(let message): localized("a11y.nearby.failed", "The search failed. %@", message)
        }
    }

    /// Picking a device as VoiceOver announces it: connecting to it, ready to pay it, or why
    /// not. Nil when nothing was picked.
    public var pickAnnouncement: String? { Self.pickAnnouncement(for: pick) }

    /// The announcement for `pick` (see `pickAnnouncement`).
    public static func pickAnnouncement(for pick: Pick) -> String? {
        switch pick {
        case .none: nil
        case .fetchingRequest(let peer):
            peer.name.isEmpty
                ? localized("a11y.nearby.connectingUnnamed", "Connecting to the device for its request.")
                : localized("a11y.nearby.connecting", "Connecting to %@ for its request.", peer.name)
        case .handedToSend(let peer):
            peer.name.isEmpty
                ? localized("a11y.nearby.readyUnnamed", "Connected. Ready to pay the device by Bluetooth.")
                : localized("a11y.nearby.ready", "Connected. Ready to pay %@ by Bluetooth.", peer.name)
        case .failed(let message): localized("a11y.nearby.pickFailed", "This device cannot be paid. %@", message)
        }
    }
}

/// Whose camera reads a code.
private enum CodeReader {
    case payer, payee
}

/// The value of an animated (or single) code: the part on screen, and who reads it.
private func codeAccessibilityValue(showing index: Int, of count: Int, reader: CodeReader) -> String {
    let part = String(index % max(count, 1) + 1)
    return switch (reader, count > 1) {
    case (.payer, false): localized("a11y.code.payer", "Hold the screen up to the payer's camera.")
    case (.payee, false): localized("a11y.code.payee", "Hold the screen up to the payee's camera.")
    case (.payer, true):
        localized(
            "a11y.code.partsPayer",
            "Showing part %1$@ of %2$@. Hold the screen up to the payer's camera until it has read every part.",
            part, String(count))
    case (.payee, true):
        localized(
            "a11y.code.partsPayee",
            "Showing part %1$@ of %2$@. Hold the screen up to the payee's camera until it has read every part.",
            part, String(count))
    }
}
