import Foundation
import OfflineNotes
import Testing
import WalletCore

/// History: account movements imported from the issuer journal exactly once, the detail view,
/// and the times `--since` / `--until` accept.
@Suite struct HistoryTests {
    /// A journal entry at the harness clock (issuer time), id `id`.
    static func entry(
        _ id: Int64, _ kind: String, _ amount: Int64, _ reference: [UInt8]? = nil, at time: Timestamp
    ) -> AccountJournalEntry {
        AccountJournalEntry(id: id, kind: kind, amount: amount, reference: reference, createdAt: Int64(time))
    }

    /// Every movement shows once: the online transfer `send-online` recorded is tied to its
    /// journal entry (not shown twice), a transfer received online, funding and an expiry
    /// refund get lines, and the purchase and redemption the wallet already shows add none —
    /// however often the same entries are imported.
    @Test func accountMovementsAppearExactlyOnceAfterTwoImports() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [5_000])
        let bob = try h.wallet("bob")
        let expiring = try h.issuer.issue(700, to: alice.publicKey, now: h.clock.now, lifetime: 60)
        try alice.deposit([expiring])
        let (_, got) = try h.transfer(1_000, from: alice, to: bob)
        try bob.recordOnlineTransfer(to: "carol@example.com", amount: 250)
        let bobNote = try #require(try bob.states(.received).first)
        h.clock.now += 120

        let t = h.clock.now
        let bobJournal = [
            Self.entry(10, "funding", 2_000, Array("dev-funding".utf8), at: t),
            Self.entry(11, "send", -250, at: t),
            Self.entry(12, "send", 400, at: t),
            Self.entry(13, "redeem", 1_000, bobNote.ref.bytes, at: t),
        ]
        let first = try bob.importAccountEntries(bobJournal)
        #expect(first == AccountHistoryImport(imported: 4, added: 2, linked: 2))
        #expect(try bob.importAccountEntries(bobJournal) == AccountHistoryImport())

        let bobLines = try bob.history()
        #expect(bobLines.count == 4, "received offline, sent online, received online, funded: \(bobLines.map(\.direction))")
        let sentOnline = try #require(bobLines.first { $0.direction == .sent })
        #expect(sentOnline.counterparty == "carol@example.com" && sentOnline.amount == 250 && sentOnline.method == "online")
        let receivedOnline = bobLines.filter { $0.direction == .received && $0.method == "online" }
        #expect(receivedOnline.map(\.amount) == [400])
        #expect(try bob.history(HistoryFilter(direction: .funded)).map(\.amount) == [2_000])
        #expect(try bob.history(HistoryFilter(direction: .received, method: .qr)).map(\.amount) == [got.amount])

        // Alice: her expired note is refunded; her purchases add nothing to her own lines.
        let purchases = try alice.states().filter { $0.chain.hops == 0 }.map { $0.chain.note.noteID.bytes }
        let aliceJournal =
            [Self.entry(20, "expiry_refund", 700, expiring.note.noteID.bytes, at: t)]
            + purchases.enumerated().map { Self.entry(21 + Int64($0.offset), "purchase", -1, $0.element, at: t) }
        let before = try alice.history().count
        #expect(try alice.balance().expired == 700)
        try alice.importAccountEntries(aliceJournal)
        try alice.importAccountEntries(aliceJournal)
        let refunds = try alice.history(HistoryFilter(direction: .refunded))
        #expect(refunds.map(\.amount) == [700])
        #expect(try alice.history().count == before + 1)
        #expect(try alice.balance().expired == 0, "the refunded note no longer counts as held")
        #expect(try alice.states(.refunded).map(\.ref) == [expiring.heldRef])
        #expect(try alice.accountHistoryCursor()?.id == aliceJournal.map(\.id).max())
    }

    /// Escrow settlement's movements read as what they are: a deposit funds the account, a
    /// withdrawal is sent out, a refused withdrawal comes back as a refund; each once.
    @Test func escrowDepositsAndWithdrawalsHaveTheirOwnLines() throws {
        let h = try WalletHarness()
        let w = try h.wallet("w")
        let t = h.clock.now
        let journal = [
            Self.entry(1, "chain-deposit", 10_000, Array(repeating: 7, count: 40), at: t),
            Self.entry(2, "withdrawal", -3_000, Array(repeating: 1, count: 32), at: t),
            Self.entry(3, "withdrawal", -500, Array(repeating: 2, count: 32), at: t),
            Self.entry(4, "withdrawal-refused", 500, Array(repeating: 2, count: 32), at: t),
            Self.entry(5, "chain-deposit-assigned", 700, Array(repeating: 9, count: 40), at: t),
        ]
        #expect(try w.importAccountEntries(journal) == AccountHistoryImport(imported: 5, added: 5, linked: 0))
        #expect(try w.importAccountEntries(journal) == AccountHistoryImport())
        let lines = try w.history().sorted { $0.id < $1.id }
        #expect(lines.map(\.direction) == [.funded, .sent, .sent, .refunded, .funded])
        #expect(
            lines.map(\.counterparty) == [
                "escrow deposit", "your address on the blockchain", "your address on the blockchain", "refused escrow withdrawal",
                "escrow deposit",
            ])
        #expect(lines.map(\.amount) == [10_000, 3_000, 500, 500, 700])
    }

    /// A second `send-online` of the same amount is tied to the second journal entry, and a
    /// send the wallet never recorded (another device) still gets its own line.
    @Test func onlineSendsPairWithTheirJournalEntriesInOrder() throws {
        let h = try WalletHarness()
        let w = try h.wallet("w")
        try w.recordOnlineTransfer(to: "a@example.com", amount: 100)
        try w.recordOnlineTransfer(to: "b@example.com", amount: 100)
        let t = h.clock.now
        try w.importAccountEntries([Self.entry(5, "send", -100, at: t)])
        try w.importAccountEntries([
            Self.entry(5, "send", -100, at: t), Self.entry(6, "send", -100, at: t), Self.entry(7, "send", -100, at: t),
        ])
        let sent = try w.history(HistoryFilter(direction: .sent)).sorted { $0.id < $1.id }
        #expect(sent.map(\.counterparty) == ["a@example.com", "b@example.com", "another account"])
        let details = try sent.map { try #require(try w.historyDetail($0.id)) }
        #expect(details.map { $0.journal.map(\.id) } == [[5], [6], [7]])
        #expect(details.allSatisfy { $0.settlement == .settled })
    }

    /// `history show`: a payment sent and the same payment received, from both sides.
    @Test func detailShowsKeyIDChainLengthReceiptAndSettlement() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [5_000])
        let bob = try h.wallet("bob")
        let carol = try h.wallet("carol")
        let (sent, got) = try h.transfer(1_200, from: alice, to: bob)
        let sentLine = try #require(try alice.history(HistoryFilter(direction: .sent)).first)
        let paid = try #require(try alice.historyDetail(sentLine.id))
        #expect(paid.entry.amount == 1_200 && paid.entry.status == .completed)
        #expect(paid.paymentID == sent.id)
        #expect(paid.counterpartyKey == bob.publicKey.keyID)
        #expect(paid.hops == [1])
        #expect(paid.receiptReceivedAt == got.receipt.receivedAt && paid.receiptHeld)
        #expect(paid.settlement == .none && paid.fraud.isEmpty)

        // Bob pays 200 of it onward to Carol: his notes now have two hops.
        let onward = try h.transfer(200, from: bob, to: carol)
        let carolLine = try #require(try carol.history(HistoryFilter(direction: .received)).first)
        let carolView = try #require(try carol.historyDetail(carolLine.id))
        #expect(carolView.hops == [2])
        #expect(carolView.counterpartyKey == bob.publicKey.keyID)
        #expect(carolView.paymentID == onward.1.id)

        let bobLine = try #require(try bob.history(HistoryFilter(direction: .received)).first)
        let received = try #require(try bob.historyDetail(bobLine.id))
        #expect(received.counterpartyKey == alice.publicKey.keyID)
        #expect(received.receiptReceivedAt == got.receipt.receivedAt)
        #expect(received.settlement == .spentOnward, "Bob paid the note on before redeeming it")

        // Carol redeems: pending until the wallet knows, then settled with its journal entry.
        #expect(carolView.settlement == .pending)
        let carolNote = try #require(try carol.states(.received).first)
        try carol.markSettled([carolNote.ref])
        try carol.importAccountEntries([Self.entry(40, "redeem", 200, carolNote.ref.bytes, at: h.clock.now)])
        let settled = try #require(try carol.historyDetail(carolLine.id))
        #expect(settled.settlement == .settled)
        #expect(settled.journal.map(\.id) == [40] && settled.journal.first?.kind == "redeem")
        #expect(try carol.historyDetail(9_999) == nil)
    }

    /// A double spend in the detail view: the honest payee paid from the cheater's account,
    /// with the fraud case; the cheater's charge as its own line.
    @Test func detailShowsFraudRecoveryAndCharges() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [3_000])
        let bob = try h.wallet("bob")
        try h.transfer(1_000, from: alice, to: bob)
        let state = try #require(try bob.states(.received).first)
        try bob.markSettled([state.ref])
        try bob.recordFraudCase(17, for: state.ref)
        try bob.importAccountEntries([Self.entry(50, "fraud_recovery", 1_000, state.ref.bytes, at: h.clock.now)])
        #expect(try bob.history().count == 1, "the recovery pays the existing line, it adds none")
        let line = try #require(try bob.history().first)
        let detail = try #require(try bob.historyDetail(line.id))
        #expect(detail.settlement == .settled)
        #expect(detail.fraud == [.init(kind: "fraud_recovery", cheater: nil, caseIDs: [17])])

        let spent = try #require(try alice.states(.spent).first)
        try alice.importAccountEntries([Self.entry(51, "fraud_recovery", -1_000, spent.ref.bytes, at: h.clock.now)])
        let charge = try #require(try alice.history(HistoryFilter(direction: .charged)).first)
        #expect(charge.amount == 1_000 && charge.counterparty == "issuer")
        let chargeDetail = try #require(try alice.historyDetail(charge.id))
        #expect(chargeDetail.fraud.map(\.kind) == ["fraud_recovery"])
        #expect(chargeDetail.hops == [0], "the note state charged for, as this wallet held it")
        // The payment that spent the state shows the charge too.
        let paymentLine = try #require(try alice.history(HistoryFilter(direction: .sent)).first)
        #expect(try alice.historyDetail(paymentLine.id)?.fraud.map(\.kind) == ["fraud_recovery"])
    }

    @Test func historyTimesAcceptDatesDateTimesAndUnixTimes() {
        #expect(HistoryTime.parse("2026-11-23")! == (1_795_392_000, true))
        #expect(HistoryTime.parse("2026-11-23T10:00:00Z")! == (1_795_392_000 + 36_000, false))
        #expect(HistoryTime.parse("2026-11-23T11:00:00+01:00")! == (1_795_392_000 + 36_000, false))
        #expect(HistoryTime.parse("2026-11-23T10:00:00.250Z")! == (1_795_392_000 + 36_000, false))
        #expect(HistoryTime.parse("1795392000")! == (1_795_392_000, false))
        #expect(HistoryTime.parse("0")! == (0, false))
        for bad in [
            "", "yesterday", "2026-02-30", "2026-13-01", "2026-11-23T10:00:00", "26-11-23", "-5", "1e9", "2026/11/23",
            "1969-12-31",
        ] {
            #expect(HistoryTime.parse(bad) == nil, "\(bad) must be refused")
        }
    }

    /// `--since` / `--until` bound the list by the line's time; imported lines carry the
    /// issuer's time of the movement.
    @Test func sinceAndUntilFilterByTime() throws {
        let h = try WalletHarness()
        let w = try h.wallet("w")
        let t = h.clock.now
        try w.importAccountEntries([
            Self.entry(1, "funding", 100, at: t - 86_400), Self.entry(2, "funding", 200, at: t),
            Self.entry(3, "funding", 300, at: t + 86_400),
        ])
        #expect(try w.history(HistoryFilter(since: t)).map(\.amount) == [300, 200])
        #expect(try w.history(HistoryFilter(until: t)).map(\.amount) == [100])
        #expect(try w.history(HistoryFilter(since: t, until: t + 1)).map(\.amount) == [200])
    }
}

/// The v2-history migration rebuilds the history table: a wallet made before it keeps every
/// line under its id, and payments still find their line.
@Suite struct HistoryMigrationTests {
    @Test func linesKeepTheirIdsAcrossTheRebuild() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [5_000])
        let bob = try h.wallet("bob")
        let request = try bob.createRequest(amount: 1_000)
        let sent = try alice.pay(request)
        let got = try bob.receive(sent.bundle, for: request.nonce)
        let before = try alice.history()

        // Put Alice's database back as the v1 schema left it.
        let db = try SQLiteHandle(h.path("alice") + "/" + Wallet.databaseFileName)
        try db.exec(
            """
            DROP TABLE account_entry; DROP TABLE fraud_case_link;
            CREATE TABLE history_v1 (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                direction TEXT NOT NULL CHECK (direction IN ('sent','received','purchased')),
                counterparty TEXT NOT NULL, amount INTEGER NOT NULL, currency TEXT NOT NULL, online INTEGER NOT NULL,
                method TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('pending','completed','failed')),
                reference BLOB, error TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
            INSERT INTO history_v1 SELECT id, direction, counterparty, amount, currency, online, method, status, reference,
                error, created_at, updated_at FROM history;
            DROP TABLE history;
            ALTER TABLE history_v1 RENAME TO history;
            CREATE INDEX history_time ON history(created_at);
            DELETE FROM grdb_migrations WHERE identifier = 'v2-history';
            """)
        db.close()

        let reopened = try h.reopen("alice")
        #expect(try reopened.history() == before)
        try reopened.confirm(receipt: got.receipt.encoded)
        let line = try #require(try reopened.history(HistoryFilter(direction: .sent)).first)
        #expect(line.id == before.first { $0.direction == .sent }?.id && line.status == .completed)
        #expect(try reopened.historyDetail(line.id)?.receiptHeld == true)
        let added = try reopened.recordOnlineTransfer(to: "x@example.com", amount: 1)
        #expect(added > before.map(\.id).max() ?? 0)
    }
}
