import Foundation
import Observation
import OfflineNotes
import QRPayload

/// What a scanned message is for, and so where the app goes with it.
public enum ScanResult: Equatable, Sendable {
    /// A payment request: Send opens prefilled with it.
    case send(PaymentRequest)
    /// A payment bundle shown as QR by a payer: Receive verifies and accepts it.
    case receive(PaymentBundle)
    /// A payee's receipt shown as QR: the payer's Send confirms the payment with it.
    case confirm(Receipt)
}

/// Why a scan or a pasted code cannot be used.
public enum ScanError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not one of this wallet's codes (another app's QR code, or text that is not `OW:…`).
    case notAWalletCode
    /// A wallet code of a newer protocol version than this app reads.
    case unsupportedVersion(UInt8)
    /// The frames are damaged or did not reassemble (a misread frame): scanning starts over.
    case unreadable(String)
    /// A wallet message, but not one a person scans (a note, a keyset…), or an unknown type.
    case notAPaymentMessage(type: UInt8?)
    /// The reassembled message does not decode.
    case invalidMessage(String)
    /// Pasted text with no frame in it.
    case nothingEntered
    /// Pasted text that holds only some of the frames.
    case incomplete(received: Int, expected: Int)

    public var description: String {
        switch self {
        case .notAWalletCode:
            return localized(
                "scan.notWalletCode", "This is not an Offline Wallet code. Scan the code on the other phone's payment screen.")
        case .unsupportedVersion(let v):
            return localized(
                "scan.newerVersion", "This code is from a newer app version (%@). Update the app, then scan again.", String(v))
        case .unreadable(let why):
            return localized("scan.unreadable", "The code could not be read (%@). Scan it again from the start.", why)
        case .notAPaymentMessage:
            return localized(
                "scan.notPaymentMessage",
                "This code is not a payment request, payment or receipt. Scan the code shown for the payment.")
        case .invalidMessage(let why):
            return localized("scan.damaged", "The code's content is damaged (%@). Ask for a new code.", why)
        case .nothingEntered: return localized("scan.nothingEntered", "Paste the code's text (it starts with OW:).")
        case .incomplete(let received, let expected):
            return localized(
                "scan.incomplete", "Only %1$@ of %2$@ parts of the code were entered. Add the missing ones or scan them.",
                String(received),
                String(expected))
        }
    }
}

/// Frames collected so far: "2 of 3".
public struct ScanProgress: Equatable, Sendable, CustomStringConvertible {
    public let received: Int
    public let expected: Int
    public init(received: Int, expected: Int) {
        self.received = received
        self.expected = expected
    }
    public var description: String { localized("scan.progress", "%1$@ of %2$@", String(received), String(expected)) }
}

/// The scan screen's logic: QR frames in any order (docs/protocol.md §9), progress, and the
/// decoded message routed by kind. The camera calls `scan(_:)` for every code it reads
/// (continuously, so the same frame many times); "Enter code manually" calls `enter(_:)` with
/// the pasted text, which goes through the same path.
///
/// A frame of another message than the one being collected starts over with that message: the
/// camera cannot be told to ignore a code, so a person who points it at a new code (a request
/// that was regenerated, the next payment) means the new one; refusing would leave the old,
/// half-read code blocking the screen until they found a reset button.
@Observable
@MainActor
public final class ScanAssembler {
    /// What one scanned frame did; the UI's haptics and overlays key off it.
    public enum Event: Equatable, Sendable {
        /// A new frame of the message being collected.
        case progress(ScanProgress)
        /// A frame already collected (the camera sees each frame many times): nothing changes.
        case duplicate
        /// A frame of another message: the old frames were dropped and this one starts the new message.
        case restarted(ScanProgress)
        /// The last frame: the message is decoded and routed.
        case complete(ScanResult)
        /// The frame or the message cannot be used; `error` says why.
        case failed(ScanError)
        /// A frame after the message was complete (the camera is still running): ignored.
        case ignored
    }

    /// Frames of the current message so far; nil before the first one.
    public private(set) var progress: ScanProgress?
    /// The decoded message once complete.
    public private(set) var result: ScanResult?
    /// The last problem, for the alert; cleared by the next good frame.
    public private(set) var error: ScanError?

    private var assembler = QRFrames.Assembler()

    public init() {}

    /// Feeds one scanned code's text.
    @discardableResult
    public func scan(_ text: String) -> Event {
        guard result == nil else { return .ignored }
        let before = assembler.progress.received
        do {
            if let payload = try assembler.add(text) { return finish(payload) }
        } catch .mixedPayloads {
            // Another message: start over with this frame (see the type's comment).
            assembler = QRFrames.Assembler()
            do {
                if let payload = try assembler.add(text) { return finish(payload) }
            } catch {
                return fail(Self.scanError(error))
            }
            error = nil
            let p = currentProgress
            progress = p
            return .restarted(p)
        } catch {
            return fail(Self.scanError(error))
        }
        let p = currentProgress
        guard p.received > before else { return .duplicate }
        progress = p
        error = nil
        return .progress(p)
    }

    /// "Enter code manually": the pasted text, one frame per line (Base45 has spaces, so only
    /// line breaks separate frames), through the same path as the camera. Returns the result
    /// when the text completes the message; otherwise the error (also in `error`).
    @discardableResult
    public func enter(_ text: String) -> Event {
        let lines = text.split(whereSeparator: \.isNewline)
            .map {
                // Safe for frames although Base45 has a space: a frame starts with "OW:", and
                // Base45's last character is never a space (at most 65535 / 45² = 32, "W", for
                // a pair of bytes, and 255 / 45 = 5 for a last single byte).
                $0.trimmingCharacters(in: .whitespaces)
            }
            .filter { !$0.isEmpty }
        guard !lines.isEmpty else { return fail(.nothingEntered) }
        var last: Event = .ignored
        for line in lines {
            last = scan(line)
            switch last {
            case .complete, .failed, .ignored: return last
            case .progress, .duplicate, .restarted: continue
            }
        }
        let p = currentProgress
        return fail(.incomplete(received: p.received, expected: p.expected))
    }

    /// "Scan again": drops everything collected.
    public func reset() {
        assembler = QRFrames.Assembler()
        progress = nil
        result = nil
        error = nil
    }

    /// Decodes a complete message and routes it by its type byte.
    public nonisolated static func route(_ message: [UInt8]) throws(ScanError) -> ScanResult {
        guard let first = message.first, let type = MessageType(rawValue: first) else {
            throw .notAPaymentMessage(type: message.first)
        }
        do {
            switch type {
            case .paymentRequest: return .send(try PaymentRequest(decoding: message))
            case .paymentBundle: return .receive(try PaymentBundle(decoding: message))
            case .receipt: return .confirm(try Receipt(decoding: message))
            case .issuedNote, .transfer, .chain, .keyset, .limits: throw ScanError.notAPaymentMessage(type: first)
            }
        } catch let e as ScanError {
            throw e
        } catch {
            throw .invalidMessage(ErrorText.message(error))
        }
    }

    private var currentProgress: ScanProgress {
        let (received, expected) = assembler.progress
        return ScanProgress(received: received, expected: expected ?? 0)
    }

    private func finish(_ payload: [UInt8]) -> Event {
        do {
            let routed = try Self.route(payload)
            result = routed
            error = nil
            progress = currentProgress
            return .complete(routed)
        } catch {
            // The frames were whole (the checksum matched) but the message is no use: keep
            // none of it, so the next scan starts clean.
            assembler = QRFrames.Assembler()
            progress = nil
            return fail(error)
        }
    }

    private func fail(_ e: ScanError) -> Event {
        if case .unreadable = e {
            // A misread frame poisons the collected set (the checksum failed): start over.
            assembler = QRFrames.Assembler()
            progress = nil
        }
        error = e
        return .failed(e)
    }

    private nonisolated static func scanError(_ e: QRFrames.Error) -> ScanError {
        switch e {
        case .notAFrame: .notAWalletCode
        case .unsupportedVersion(let v): .unsupportedVersion(v)
        case .malformed(let why): .unreadable(why)
        case .checksumMismatch: .unreadable(localized("scan.frameMisread", "a frame was misread"))
        case .mixedPayloads: .unreadable(localized("scan.framesMixed", "frames of two codes were mixed"))
        case .tooLarge(let bytes, _):
            .unreadable(
                localized(
                    "scan.tooLarge", count: bytes, one: "%lld byte is more than a code carries",
                    other: "%lld bytes is more than a code carries"))
        }
    }
}
