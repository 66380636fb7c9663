import OfflineNotes
import OfflineNotesTesting
import QRPayload

/// Real messages to scan (a request, a payment bundle, a receipt): the shared fixture, under the
/// name these tests use.
typealias MessageFixture = OfflineNotesTesting.Fixture

extension OfflineNotesTesting.Fixture {
    /// `message` cut into exactly `count` QR frames.
    func frames(_ message: some WireMessage, count: Int) throws -> [String] {
        let size = message.encoded.count
        let frames = try QRFrames.encode(message.encoded, chunkSize: (size + count - 1) / count)
        precondition(frames.count == count, "\(size) bytes do not cut into \(count) frames")
        return frames
    }

    /// `message` as QR frames of at most `chunkSize` bytes.
    func frames(_ message: some WireMessage, chunkSize: Int = 600) throws -> [String] {
        try QRFrames.encode(message.encoded, chunkSize: chunkSize)
    }
}
