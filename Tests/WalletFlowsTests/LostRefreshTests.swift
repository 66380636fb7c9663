import Foundation
import OfflineNotes
import Synchronization
import Testing
import WalletCore
import WalletFlows
import WalletSync
import WalletTestSupport

/// DESIGN §2.3 and §2.6: a refresh whose answer is lost after the issuer
/// committed it. The issuer took the old notes and issued fresh ones; the wallet never saw them.
/// The next sync must recover the fresh notes: the value neither vanishes (old notes retired,
/// fresh ones never fetched) nor doubles (old notes released and fresh ones added), counted
/// in the wallet and in the issuer's books.
@Suite("A lost refresh answer")
struct LostRefreshTests {
    /// The next sync's resend meets a busy issuer (503): the sync stops with the notes still
    /// held, instead of going on to the state check, which would hear "redeemed" and retire them
    /// while their fresh notes sit at the issuer. The sync after that recovers them.
    @Test func aResendMetByABusyIssuerKeepsTheNotesHeldForTheNextSync() async throws {
        try await LoopbackIssuer.with { h in
            let losing = Mutex(1)  // the first refresh's answer is lost
            let busy = Mutex(0)  // then the next this-many refreshes are answered 503
            let (session, _) = try await h.loggedIn("busy-refresher", funds: 10_000) { url in
                IssuerClient(
                    serverURL: url,
                    transport: LosingTransport(
                        loses: { operation in
                            operation == "refreshNotes"
                                && losing.withLock { count in
                                    defer { count = max(0, count - 1) }
                                    return count > 0
                                }
                        },
                        unavailable: { operation in
                            operation == "refreshNotes"
                                && busy.withLock { count in
                                    defer { count = max(0, count - 1) }
                                    return count > 0
                                }
                        }))
            }
            #expect(try await session.purchase(5_000) == 5_000)
            await #expect(throws: IssuerClientError.self) { try await session.sync(refreshWithin: 365 * 86_400) }
            #expect(try session.wallet.balance().needsOnlineCheck == 5_000)

            busy.withLock { $0 = 1 }
            let incomplete = await #expect(throws: SyncIncomplete.self) { try await session.sync(refreshWithin: 0) }
            #expect(incomplete?.failures.map(\.step) == [.restoredNotes])
            #expect(incomplete?.failures.first?.error.status == 503)
            let held = try session.wallet.balance()
            #expect(held.needsOnlineCheck == 5_000 && held.spendable == 0, "the held notes were retired or released: \(held)")

            _ = try await session.sync(refreshWithin: 0)
            let balance = try session.wallet.balance()
            #expect(balance.spendable == 5_000 && balance.total == 5_000, "value vanished or doubled: \(balance)")
            #expect(try await session.account().balance == 5_000)
            #expect(try await h.issuer.outstandingFloat() == 5_000)
            #expect(try await h.issuer.checkLedger().isEmpty)
        }
    }

    @Test func theNextSyncRecoversTheFreshNotesAndValueNeitherVanishesNorDoubles() async throws {
        try await LoopbackIssuer.with { h in
            let losing = Mutex(1)  // the first refresh's answer is lost
            let (session, _) = try await h.loggedIn("refresher", funds: 10_000) { url in
                IssuerClient(
                    serverURL: url,
                    transport: LosingTransport { operation in
                        operation == "refreshNotes"
                            && losing.withLock { count in
                                defer { count = max(0, count - 1) }
                                return count > 0
                            }
                    })
            }
            #expect(try await session.purchase(3_000) == 3_000)
            #expect(try await session.purchase(2_000) == 2_000)
            let old = Set(try session.wallet.states(.available).map(\.ref))
            #expect(old.count == 2)

            // Every note is due (expiring within a year): the refresh goes out, the issuer
            // commits it, and the answer never arrives.
            let error = await #expect(throws: IssuerClientError.self) { try await session.sync(refreshWithin: 365 * 86_400) }
            #expect(error?.isUnreachable == true)
            #expect(losing.withLock { $0 } == 0, "the refresh was never sent")
            // The issuer took the old notes: redeemed into the account, bought back as fresh notes.
            #expect(try await session.account().balance == 5_000)
            #expect(try await session.account().outstandingNotes == 5_000)
            // The wallet holds the old ones back from spending: not spendable, not gone.
            let held = try session.wallet.balance()
            #expect(held.spendable == 0 && held.needsOnlineCheck == 5_000)

            // The next sync (nothing due this time) recovers the fresh notes.
            let report = try await session.sync(refreshWithin: 0)
            let balance = try session.wallet.balance()
            #expect(balance.spendable == 5_000, "value vanished: \(balance)")
            #expect(balance.needsOnlineCheck == 0 && balance.total == 5_000, "value doubled or stuck: \(balance)")
            let fresh = try session.wallet.states(.available)
            #expect(fresh.allSatisfy { !old.contains($0.ref) && !$0.needsOnlineCheck })
            #expect(fresh.map(\.amount).reduce(0, +) == 5_000)
            #expect(report.account.balance == 5_000)
            // The books: the account and the float are as before the refresh, and the float is
            // exactly the notes the wallet holds.
            #expect(try await session.account().outstandingNotes == 5_000)
            #expect(try await h.issuer.outstandingFloat() == 5_000)
            #expect(try await h.issuer.checkLedger().isEmpty)

            // Syncing again changes nothing.
            _ = try await session.sync(refreshWithin: 0)
            #expect(try session.wallet.balance() == balance)
            #expect(try await session.account().balance == 5_000)

            // The recovered notes are real: paid to Bob offline and redeemed by his sync.
            let (bob, _) = try await h.loggedIn("bob")
            let request = try bob.wallet.createRequest(amount: 4_500)
            let sent = try session.wallet.pay(request)
            _ = try bob.wallet.receive(sent.bundle, for: request.nonce)
            #expect(try await bob.sync(refreshWithin: 0).redemption.credited == 4_500)
            #expect(try await bob.account().balance == 4_500)
            #expect(try await h.issuer.outstandingFloat() == 500)
            #expect(try await h.issuer.checkLedger().isEmpty)
        }
    }
}
