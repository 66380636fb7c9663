import Foundation
import OfflineNotes
import Synchronization
import Testing
import WalletCore
import WalletFlows
import WalletSync
import WalletTestSupport

/// A sync whose one step the issuer refuses still runs every other step: the refusal of one
/// kind of work never holds back money owed for another.
@Suite("A sync with a failing step")
struct PartialSyncTests {
    @Test func aRefusedStepDoesNotStopTheStepsAfterIt() async throws {
        try await LoopbackIssuer.with { h in
            let announcing = Mutex(false)  // the issuer answers 503 to announcements until set
            let (alice, _) = try await h.loggedIn("partial", funds: 10_000) { url in
                IssuerClient(
                    serverURL: url,
                    transport: LosingTransport(
                        loses: { _ in false }, unavailable: { $0 == "announceTransfer" && !announcing.withLock { $0 } }))
            }
            let (bob, _) = try await h.loggedIn("bob")
            let (carol, _) = try await h.loggedIn("carol", funds: 3_000)
            #expect(try await alice.purchase(5_000) == 5_000)
            #expect(try await carol.purchase(3_000) == 3_000)
            // Alice paid Bob; his receipt never came back, so her sync announces the payment.
            let toBob = try bob.wallet.createRequest(amount: 1_000)
            _ = try bob.wallet.receive(try alice.wallet.pay(toBob).bundle, for: toBob.nonce)
            // Carol paid Alice 700, for Alice's sync to redeem.
            let toAlice = try alice.wallet.createRequest(amount: 700)
            _ = try alice.wallet.receive(try carol.wallet.pay(toAlice).bundle, for: toAlice.nonce)

            let incomplete = await #expect(throws: SyncIncomplete.self) { try await alice.sync(refreshWithin: 3_600) }
            #expect(incomplete?.failures.map(\.step) == [.announce])
            #expect(incomplete?.failures.first?.error.status == 503)
            #expect(incomplete?.description.contains("step 2/7") == true)
            // Redemption (step 4) ran after the refused announcement (step 2).
            #expect(incomplete?.report.redemption.credited == 700)
            #expect(incomplete?.report.announced == 0)
            #expect(try await alice.account().balance == 10_000 - 5_000 + 700)
            #expect(try alice.wallet.pendingPayments().count == 1)

            // The step is safe to run again: the next sync announces the payment.
            announcing.withLock { $0 = true }
            let report = try await alice.sync(refreshWithin: 3_600)
            #expect(report.announced == 1 && report.redemption.credited == 0)
            #expect(try await h.issuer.checkLedger().isEmpty)
        }
    }

    @Test func losingTheIssuerStopsTheSyncWhereItHappens() async throws {
        try await LoopbackIssuer.with { h in
            let (alice, _) = try await h.loggedIn("cut", funds: 10_000)
            let network = CuttableTransport()
            let (bob, _) = try await h.loggedIn("bob-offline") { url in IssuerClient(serverURL: url, transport: network) }
            #expect(try await alice.purchase(2_000) == 2_000)
            let request = try bob.wallet.createRequest(amount: 500)
            _ = try bob.wallet.receive(try alice.wallet.pay(request).bundle, for: request.nonce)
            network.isCut = true
            let error = await #expect(throws: IssuerClientError.self) { try await bob.sync(refreshWithin: 3_600) }
            #expect(error?.isUnreachable == true)
            #expect(try bob.wallet.balance().unsettled == 500, "nothing redeemed while the issuer was unreachable")
        }
    }
}
