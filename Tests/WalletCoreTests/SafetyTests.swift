import DevIssuer
import Foundation
import OfflineNotes
import Testing
import WalletCore

#if canImport(Glibc)
import Glibc
#endif

@Suite struct SingleSigningTests {
    /// DESIGN §2.4 under crashes: a crash at any step of paying, then a restart and a retry,
    /// never yields two different transfers of one note state, and the retry after commit
    /// returns the very bytes that were committed.
    @Test(arguments: [FailurePoint.paySelected, .paySigned, .payBeforeCommit, .payAfterCommit])
    func aCrashAtAnyStepNeverLeadsToTwoTransfers(point: FailurePoint) throws {
        let h = try WalletHarness()
        let failure = OneShotFailure(point)
        _ = try h.wallet("alice", funds: [10_000])
        let crashing = try h.reopen("alice") { try failure.hit($0) }
        let bob = try h.wallet("bob")
        let request = try bob.createRequest(amount: 2_500)

        let committed = point == .payAfterCommit
        // The crash surfaces as a storage error naming it (after the commit: saying so).
        let crash = String(describing: OneShotFailure.Crash())
        #expect(walletError { try crashing.pay(request) } == .storage(committed ? "interrupted after commit: \(crash)" : crash))
        let afterCrash = try h.reopen("alice")
        #expect(try afterCrash.pendingPayments().count == (committed ? 1 : 0))
        #expect(try afterCrash.balance().spendable == (committed ? 7_500 : 10_000))

        let retried = try afterCrash.pay(request)
        let again = try afterCrash.pay(request)
        #expect(retried.bundle == again.bundle)
        if committed {
            #expect(retried.bundle == (try afterCrash.outgoingPayment(for: request.nonce))?.bundle)
        }
        // Exactly one transfer of the original note exists anywhere.
        let spentNotes = try afterCrash.states().filter { $0.status == .reserved }
        #expect(spentNotes.count == 1)
        #expect(try bob.receive(retried.bundle, for: request.nonce).amount == 2_500)
        #expect(try afterCrash.balance().spendable == 7_500)
    }

    @Test func aCrashWhileReceivingLeavesNoTraceAndTheRetryWorks() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [10_000])
        let failure = OneShotFailure(.receiveBeforeCommit)
        _ = try h.wallet("bob")
        let bob = try h.reopen("bob") { try failure.hit($0) }
        let request = try bob.createRequest(amount: 1_000)
        let sent = try alice.pay(request)
        let before = try WalletState(bob)
        #expect(
            walletError { try bob.receive(sent.bundle, for: request.nonce) }
                == .storage(String(describing: OneShotFailure.Crash())))
        // No trace: every balance line, note, history line and pending payment as before.
        #expect(try WalletState(bob) == before)
        #expect(try WalletState(h.reopen("bob")) == before)
        #expect(try bob.receive(sent.bundle, for: request.nonce).amount == 1_000)
        let after = try bob.balance()
        #expect(after.spendable == 1_000 && after.unsettled == 1_000 && after.total == 1_000 && after.holding == 1_000)
        #expect(try bob.history(HistoryFilter(direction: .received)).count == 1)
    }

    /// Several tasks paying from one wallet at once: each note state is signed at most once
    /// and the value adds up.
    @Test func concurrentPaymentsNeverShareANote() async throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: Array(repeating: 1_000, count: 12))
        let bob = try h.wallet("bob")
        // 20 × 700 = 14,000 asked of 12,000: some payments must fail, none may overdraw.
        let requests = try (0..<20).map { _ in try bob.createRequest(amount: 700) }
        let results = await withTaskGroup(of: Result<OutgoingPayment, WalletError>.self) { group in
            for request in requests {
                group.addTask {
                    do throws(WalletError) { return .success(try alice.pay(request)) } catch { return .failure(error) }
                }
            }
            var out: [Result<OutgoingPayment, WalletError>] = []
            for await r in group { out.append(r) }
            return out
        }
        let paid = results.compactMap { try? $0.get() }
        #expect(paid.count >= 12 && paid.count <= 17, "\(paid.count) payments")
        // Every refusal is "not enough money", never a storage error (SQLITE_BUSY, a lock).
        for case .failure(let error) in results {
            guard case .insufficientFunds(let available, 700, h.eur) = error, available < 700 else {
                Issue.record("a concurrent payment failed with \(error)")
                continue
            }
        }
        var inputs = Set<StateRef>()
        for payment in paid {
            for chain in try PaymentBundle(decoding: payment.bundle).chains {
                #expect(inputs.insert(chain.transfers.last!.input).inserted, "a note state was spent twice")
            }
        }
        for payment in paid {
            let got = try bob.receive(payment.bundle, for: payment.request.nonce)
            try alice.confirm(receipt: got.receipt.encoded)
        }
        let a = try alice.balance()
        #expect(a.reserved == 0)
        #expect(try bob.balance().spendable == UInt64(paid.count) * 700)
        #expect(a.spendable + (try bob.balance().spendable) == 12_000)
    }
}

@Suite struct DoubleSpendTests {
    /// A tampered phone signs a second transfer of a note it already spent. A payee who saw
    /// the first one refuses the second and keeps a proof naming the cheater.
    @Test func aPayeeWhoSawTheFirstSpendCatchesTheSecond() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice")
        let note = try h.issuer.issue(5_000, to: alice.publicKey, now: h.clock.now)
        try alice.deposit([note])
        let bob = try h.wallet("bob")
        try h.transfer(2_000, from: alice, to: bob)

        // Outside the wallet, with Alice's key: the same note state, another transfer.
        let request = try bob.createRequest(amount: 5_000)
        let second = try Transfer.sign(
            input: note.heldRef, outputs: [TransferOutput(owner: bob.publicKey, amount: 5_000)], nonce: request.nonce,
            createdAt: h.clock.now, signer: alice.identity.signer)
        let bundle = try PaymentBundle(chains: [note.appending(second, holding: 0)]).encoded
        let error = walletError { try bob.receive(bundle, for: request.nonce) }
        guard case .doubleSpendDetected(let proof) = error else {
            Issue.record("expected a double spend, got \(String(describing: error))")
            return
        }
        #expect(proof.cheater == alice.publicKey)
        #expect(try h.issuer.verifier.verify(proof, now: h.clock.now) == alice.publicKey)
        #expect(try bob.fraudProofs() == [proof])
        #expect(try bob.balance().spendable == 2_000)

        // A payee who never saw the first spend cannot know offline; it accepts (the server
        // catches it at redemption).
        let carol = try h.wallet("carol")
        let r2 = try carol.createRequest(amount: 5_000)
        let third = try Transfer.sign(
            input: note.heldRef, outputs: [TransferOutput(owner: carol.publicKey, amount: 5_000)], nonce: r2.nonce,
            createdAt: h.clock.now, signer: alice.identity.signer)
        #expect(
            try carol.receive(PaymentBundle(chains: [note.appending(third, holding: 0)]).encoded, for: r2.nonce).amount == 5_000)
    }

    @Test func anHonestWalletRefusesToSignASecondTransferEvenIfTheRowIsReset() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [1_000])
        let bob = try h.wallet("bob")
        let first = try alice.pay(try bob.createRequest(amount: 400))
        // Simulate a corrupted state row: the note looks spendable again.
        let db = try SQLiteHandle(alice.databasePath)
        try db.exec("UPDATE note_state SET status = 'available' WHERE status = 'reserved'")
        db.close()
        // The spend record's primary key still refuses a second transfer of that state.
        let second = try bob.createRequest(amount: 900)
        let before = try WalletState(alice)
        let error = walletError { try alice.pay(second) }
        guard case .storage(let message) = error, message.contains("UNIQUE constraint failed: spend_edge.state_ref") else {
            Issue.record("expected the spend record to refuse the second transfer, got \(String(describing: error))")
            return
        }
        #expect(try WalletState(alice) == before, "the refused transfer left a trace")
        #expect(try alice.pendingPayments().map(\.bundle) == [first.bundle])
    }
}

@Suite struct BackupTests {
    /// A restored wallet has a new key and exchanges restored notes online;
    /// an online "unspent" answer never releases them for offline spending, because the old
    /// device may still spend them with the old key.
    @Test func restoredNotesAreExchangedUnderANewKeyNeverReleased() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [10_000])
        let bob = try h.wallet("bob")
        let pendingRequest = try bob.createRequest(amount: 1_500)
        let pending = try alice.pay(pendingRequest)
        let openRequest = try alice.createRequest(amount: 700)
        let backup = try alice.exportBackup(passphrase: "correct horse", cost: .testing)

        let restored = try Wallet.restore(
            backup, passphrase: "correct horse", into: h.path("alice2"), keyCost: .testing, environment: h.environment())
        #expect(restored.publicKey != alice.publicKey)
        #expect(try restored.restoredFromKey() == alice.publicKey)
        var balance = try restored.balance()
        #expect(balance.spendable == 0)
        #expect(balance.needsOnlineCheck == 8_500)
        #expect(balance.reserved == 1_500)
        #expect(balance.total == 10_000)
        #expect(walletError { try restored.pay(try bob.createRequest(amount: 100)) } == .needsOnlineCheck(8_500, currency: h.eur))
        // The interrupted payment can still be resent byte for byte.
        #expect(try restored.outgoingPayment(for: pendingRequest.nonce)?.bundle == pending.bundle)
        #expect(try restored.history().count == 2)
        // A request made under the old key is closed: a payment to it could not be spent here.
        let carol = try h.wallet("carol", funds: [700])
        #expect(
            walletError { try restored.receive(try carol.pay(openRequest).bundle, for: openRequest.nonce) }
                == .unknownRequest(openRequest.nonce))

        // "Unspent" from the issuer does not free them (the old device still holds the key).
        let refs = try restored.restoredStates().map(\.ref)
        #expect(refs.count == 1)
        try restored.applyOnlineCheck(Dictionary(uniqueKeysWithValues: refs.map { ($0, .unspent) }))
        #expect(try restored.balance().spendable == 0)

        // The exchange retires them and adds fresh notes of the new key.
        let fresh = try h.issuer.issue(8_500, to: restored.publicKey, now: h.clock.now)
        #expect(try restored.applyRestoreExchange([refs[0]: .exchanged], fresh: [fresh]) == 8_500)
        balance = try restored.balance()
        #expect(balance.spendable == 8_500)
        #expect(balance.needsOnlineCheck == 0)
        #expect(try restored.restoredStates().isEmpty)
        #expect(try restored.pay(try bob.createRequest(amount: 100)).amount == 100)
        // Fresh notes of another key are refused.
        #expect(
            walletError {
                try restored.applyRestoreExchange([:], fresh: [try h.issuer.issue(100, to: alice.publicKey, now: h.clock.now)])
            }
                == .notOwnedByWallet)
    }

    @Test func notesSpentSinceTheBackupAreRetiredByTheExchange() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [3_000])
        let backup = try alice.exportBackup(passphrase: "pw", cost: .testing)
        let bob = try h.wallet("bob")
        try h.transfer(3_000, from: alice, to: bob)
        let restored = try Wallet.restore(
            backup, passphrase: "pw", into: h.path("alice2"), keyCost: .testing, environment: h.environment())
        let refs = try restored.restoredStates().map(\.ref)
        try restored.applyRestoreExchange([refs[0]: .alreadySpent], fresh: [])
        #expect(try restored.balance().spendable == 0)
        #expect(try restored.balance().needsOnlineCheck == 0)
        #expect(try restored.balance().total == 0)
    }

    @Test func wrongPassphraseAndTamperingAreDetected() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [3_000])
        let backup = try alice.exportBackup(passphrase: "pw", cost: .testing)
        #expect(
            walletError { try Wallet.restore(backup, passphrase: "PW", into: h.path("x"), environment: h.environment()) }
                == .wrongPassphrase)
        // Each byte of the header has its own check; the rest is authenticated by AES-GCM, which
        // cannot tell a changed byte from a wrong passphrase.
        let notABackup = WalletError.corruptFile("not an encrypted file of this kind")
        let expected: [(position: Int, error: WalletError)] = [
            (0, notABackup),  // magic
            (6, .corruptFile("unreasonable key-derivation cost")),  // log2 N
            (20, .wrongPassphrase),  // salt
            (40, .wrongPassphrase), (backup.count / 2, .wrongPassphrase), (backup.count - 1, .wrongPassphrase),
        ]
        for (position, error) in expected {
            var tampered = backup
            tampered[position] ^= 0x20
            #expect(
                walletError {
                    try Wallet.restore(tampered, passphrase: "pw", into: h.path("t\(position)"), environment: h.environment())
                } == error,
                "byte \(position)")
            #expect(!FileManager.default.fileExists(atPath: h.path("t\(position)")), "a refused backup left a wallet behind")
        }
        #expect(
            walletError {
                try Wallet.restore(Array(backup.prefix(30)), passphrase: "pw", into: h.path("y"), environment: h.environment())
            } == notABackup)
        #expect(!FileManager.default.fileExists(atPath: h.path("y")))
        #expect(
            walletError { try Wallet.restore(backup, passphrase: "pw", into: h.path("alice"), environment: h.environment()) }
                == .walletExists(h.path("alice")))
    }
}

@Suite struct KeyFileTests {
    @Test func keyFilesAreCreatedPrivateAndRefusedWhenNot() throws {
        let h = try WalletHarness()
        let w = try h.wallet("alice")
        let keyPath = h.path("alice/wallet.key")
        var info = stat()
        #expect(stat(keyPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(try h.reopen("alice").publicKey == w.publicKey)
        chmod(keyPath, 0o644)
        #expect(walletError { try h.reopen("alice") } == .insecureKeyFile(path: keyPath, mode: 0o644))
        #expect(walletError { try h.wallet("alice") } == .walletExists(h.path("alice")))
        #expect(walletError { try h.reopen("nobody") } == .walletMissing(h.path("nobody")))
    }

    @Test func passphraseProtectedKeys() throws {
        let h = try WalletHarness()
        let dir = h.path("locked")
        let w = try Wallet.create(directory: dir, passphrase: "s3cret", keyCost: .testing, environment: h.environment())
        let raw = try #require(FileManager.default.contents(atPath: dir + "/wallet.key"))
        #expect(!Array(raw).contains(subsequence: w.identity.exportableKey!))
        #expect(walletError { try Wallet.open(directory: dir, environment: h.environment()) } == .passphraseRequired)
        #expect(
            walletError { try Wallet.open(directory: dir, passphrase: "nope", environment: h.environment()) } == .wrongPassphrase)
        #expect(try Wallet.open(directory: dir, passphrase: "s3cret", environment: h.environment()).publicKey == w.publicKey)
    }
}

extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool {
        guard subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<($0 + subsequence.count)]) == subsequence }
    }
}

/// A wallet whose database was emptied or overwritten while its key stayed is refused, not
/// opened as a new empty wallet under the old key.
@Suite struct LostDatabaseOpenTests {
    @Test(arguments: [Data(), Data("not a database at all".utf8)])
    func anEmptiedDatabaseIsRefusedAndLeftAsItIs(_ contents: Data) throws {
        let h = try WalletHarness()
        _ = try h.wallet("emptied", funds: [2_000])
        let database = h.path("emptied") + "/" + Wallet.databaseFileName
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
        try contents.write(to: URL(fileURLWithPath: database))
        let error = walletError { try h.reopen("emptied") }
        guard case .corruptFile(let why) = error else {
            Issue.record("expected corruptFile, got \(String(describing: error))")
            return
        }
        #expect(why.contains("restore your latest backup"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == contents, "the refused file was changed")
    }
}
