#if os(Linux)
import Foundation
import Testing

/// Text another party wrote reaches the terminal with its control characters made visible: a
/// payee's name can hold escape sequences (clear the screen, retitle the window) and CR/LF that
/// forge a line, and `pay`, `history` and `history show` print that name.
@Suite("text from another party", .serialized)
struct OtherPartyTextTests {
    @Test func aHostilePayeeNameIsPrintedWithItsControlCharactersVisible() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let payer = try cli.registeredWallet("payer", server: server)
        let payee = try cli.registeredWallet("stall", server: server)
        #expect(try cli.run(["fund", "--json", "--wallet", payer, "10.00"]).status == 0)
        #expect(try cli.run(["purchase", "--json", "--wallet", payer, "10.00"]).status == 0)

        let hostile = "Stall\u{1B}[2J\u{1B}]0;pwned\u{07}\r\nFAKE: Paid 999.00 EUR"
        let request = try cli.run(["request", "--json", "--wallet", payee, "3.00", "--name", hostile])
        #expect(request.status == 0, "request: \(request.errorMessage)")
        let frames = try #require(request.json["request"] as? [String])
        let pay = try cli.run(["pay", "--wallet", payer, "--via", "qr"] + frames)
        #expect(pay.status == 0, "pay: \(pay.stderr)")
        let history = try cli.run(["history", "--wallet", payer])
        let entries = try #require(try cli.run(["history", "--json", "--wallet", payer]).json["entries"] as? [[String: Any]])
        let sent = try #require(entries.first { $0["direction"] as? String == "sent" })
        #expect(sent["counterparty"] as? String == hostile, "--json keeps the name as signed (JSON escapes it)")
        let show = try cli.run(["history", "show", String(describing: try #require(sent["id"])), "--wallet", payer])

        let visible = "Stall\u{241B}[2J\u{241B}]0;pwned\u{2407}\u{240D}\u{240A}FAKE: Paid 999.00 EUR"
        for (command, output) in [("pay", pay.stdout), ("history", history.stdout), ("history show", show.stdout)] {
            let controls = output.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }
            #expect(controls.isEmpty, "\(command) printed control characters \(controls.map { String($0.value, radix: 16) })")
            #expect(output.contains(visible), "\(command) does not show the name visibly:\n\(output)")
        }
    }
}
#endif
