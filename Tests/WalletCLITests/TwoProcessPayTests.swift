#if os(Linux)
import Foundation
import OfflineNotes
import Testing
import WalletCore

@testable import WalletCLI

/// DESIGN §2.4: an honest wallet never signs two transfers of one note state —
/// not even when two `wallet pay` processes are started at once on one wallet directory.
/// Each round starts two real processes paying two payees from the same wallet; the payments
/// they print, and the wallet's own records afterwards, never spend one state twice.
@Suite("two wallet processes on one directory", .serialized)
struct TwoProcessPayTests {
    @Test func twoPayProcessesOnOneWalletNeverSpendOneStateTwice() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let payer = try cli.registeredWallet("payer", server: server)
        let payees = [try cli.registeredWallet("p1", server: server), try cli.registeredWallet("p2", server: server)]
        #expect(try cli.run(["fund", "--json", "--wallet", payer, "100.00"]).status == 0)
        // Ten notes of 10.00: both processes of a round see the same notes to choose from.
        for _ in 0..<10 { #expect(try cli.run(["purchase", "--json", "--wallet", payer, "10.00"]).status == 0) }

        // Six rounds of two 10.00 payments at once: ten fit, the last round's two find nothing.
        var paid: [(id: String, bundle: PaymentBundle)] = []
        var refused: [CLI.Result] = []
        for round in 0..<6 {
            var frames: [[String]] = []
            for payee in payees {
                let request = try cli.run(["request", "--json", "--wallet", payee, "10.00", "--name", "round \(round)"])
                #expect(request.status == 0, "request: \(request.errorMessage)")
                frames.append(try #require(request.json["request"] as? [String]))
            }
            let results = try await withThrowingTaskGroup(of: CLI.Result.self) { group in
                for request in frames {
                    group.addTask { try cli.run(["pay", "--json", "--wallet", payer, "--via", "qr"] + request) }
                }
                return try await group.reduce(into: [CLI.Result]()) { $0.append($1) }
            }
            for result in results {
                if result.status == 0 {
                    let id = try #require(result.json["paymentId"] as? String)
                    let text = try #require(result.json["payment"] as? [String])
                    paid.append((id, try PaymentBundle(decoding: try Codes.read(text))))
                } else {
                    refused.append(result)
                }
            }
        }
        #expect(paid.count == 10, "\(paid.count) payments signed; refusals: \(refused.map(\.errorMessage))")
        #expect(
            refused.count == 2 && refused.allSatisfy { $0.status == 3 && $0.errorCode == "insufficient_funds" },
            "\(refused.map { "\($0.status) \($0.errorMessage)" })")

        // No state is spent by two of the printed payments.
        let inputs = paid.flatMap { $0.bundle.chains.compactMap { $0.transfers.last?.input } }
        #expect(inputs.count == paid.map(\.bundle.chains.count).reduce(0, +))
        #expect(
            Set(inputs).count == inputs.count, "a note state was signed over twice: \(inputs.count - Set(inputs).count) repeats")

        // The wallet's own records agree: the 10 payments and their bytes, each input reserved once.
        let wallet = try Wallet.open(directory: payer)
        let pending = try wallet.pendingPayments()
        #expect(Set(pending.map(\.id.hex)) == Set(paid.map(\.id)))
        for payment in pending {
            #expect(
                paid.first { $0.id == payment.id.hex }?.bundle.encoded == payment.bundle,
                "payment \(payment.id.hex) differs from what was printed")
        }
        let reserved = try wallet.states(.reserved)
        #expect(Set(reserved.map(\.ref)) == Set(inputs))
        let balance = try wallet.balance()
        #expect(balance.reserved == 10_000 && balance.spendable == 0)
        #expect(balance.total == 10_000)
    }
}
#endif
