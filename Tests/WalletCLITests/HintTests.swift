#if os(Linux)
import Foundation
import OfflineNotes
import QRPayload
import Testing

@testable import WalletCLI

/// docs/protocol.md §4.5: a payer ignores a hint it cannot use, like an unknown kind, and goes
/// on to the next. The command line took the first TCP hint whatever it held, and a request whose
/// first TCP hint was malformed was refused ("offers no nearby session") although its second
/// hint named a usable address.
@Suite("wallet pay: transport hints", .serialized)
struct HintTests {
    @Test func aMalformedTCPHintIsSkippedForTheNextUsableOne() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let payer = try cli.registeredWallet("payer", server: server)
        #expect(try cli.run(["fund", "--json", "--wallet", payer, "10.00"]).status == 0)
        #expect(try cli.run(["purchase", "--json", "--wallet", payer, "10.00"]).status == 0)

        // Nobody listens at the usable address: the payment is signed, sent nowhere and kept —
        // which shows the second hint was taken (the first alone is refused before signing).
        let port = try TestServer.freePort()
        let request = try PaymentRequest(
            payee: SoftwareSigner().publicKey, currency: Currency("EUR")!, amount: 150,
            nonce: Nonce(uncheckedBytes: (0..<16).map { _ in UInt8.random(in: 0...255) }),
            expiresAt: Timestamp(Date().timeIntervalSince1970) + 600, payeeName: "Payee",
            hints: [.tcp("no port here"), .tcp("127.0.0.1:\(port)")], sessionKey: SoftwareSigner().publicKey)
        let frames = try QRFrames.encode(request.encoded)
        let paid = try cli.run(["pay", "--json", "--wallet", payer, "--timeout", "2"] + frames)
        #expect(paid.errorCode != "not_nearby_request", "\(paid.errorMessage)")
        #expect(paid.status == 7, "\(paid.errorMessage)")
        #expect(
            paid.errorMessage.hasSuffix(
                "The payment was signed and kept: run the same `wallet pay` again to resend the same bytes."))
    }
}
#endif
