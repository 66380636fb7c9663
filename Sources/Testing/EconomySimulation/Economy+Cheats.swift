import Foundation
import IssuerCore
import OfflineNotes
import WalletCore

/// Signs as the issuer's key id with another key: a forged note claims the real issuing key.
struct ImpostorSigner: MessageSigner {
    let publicKey: PublicKeyBytes
    let real: SoftwareSigner
    func sign(_ message: [UInt8]) throws -> [UInt8] { try real.sign(message) }
}

// Cheaters never use the engine to cheat (it refuses): they sign with their key outside it, as a
// tampered phone or a second copy of the wallet would, or hand-edit bytes. Honest wallets only
// ever see the results through the public engine API.
extension Economy {
    func cheat(_ kind: String, attempted: Int = 0, detected: Int = 0, attributed: Int = 0) {
        var c = report.cheats[kind] ?? CheatCount()
        c.attempted += attempted
        c.detected += detected
        c.attributed += attributed
        report.cheats[kind] = c
    }

    /// The chain holding the state `chain`'s last transfer spends.
    static func inputChain(of chain: Chain) throws -> Chain {
        guard let last = chain.transfers.last else { throw EconomyError("a payment chain without a transfer") }
        let prefix = Array(chain.transfers.dropLast())
        guard let previous = prefix.last else { return Chain(note: chain.note) }
        guard let index = (0..<previous.outputs.count).first(where: { previous.outputRef($0) == last.input }) else {
            throw EconomyError("a payment chain whose last transfer spends no output of the one before")
        }
        return Chain(note: chain.note, transfers: prefix, heldIndex: UInt8(index))
    }

    /// A cheater pays an honest payee, then signs a second transfer of the same note state: to
    /// the same payee (who saw the first and must refuse it, keeping the proof) or to another
    /// (who cannot know, accepts, and is paid at redemption from the cheater's account).
    func doubleSpend(couldKnow: Bool) async throws {
        guard let c = active(where: { $0.role == .cheater }), let a = active(excluding: [c], where: { !$0.cheats }),
            let (_, payment) = try await pay(c, a, amount())
        else { return }
        let kind: DoubleSpendRecord.Kind = couldKnow ? .payeeCouldKnow : .payeeCouldNotKnow
        guard let first = try PaymentBundle(decoding: payment.bundle).chains.first else { return }
        let input = try Self.inputChain(of: first)
        guard let held = input.heldOutput?.amount else { return }
        guard let victim = couldKnow ? a : active(excluding: [c, a], where: { !$0.cheats }) else { return }
        let value = min(held, amount())
        let victimWallet = try wallet(victim)
        if try victimWallet.balance().riskBudgetLeft < value { try await sync(victim) }
        let request = try wallet(victim).createRequest(amount: value)
        var outputs = [TransferOutput(owner: request.payee, amount: value)]
        let cheaterKey = try wallet(c).identity.signer
        if held > value { outputs.append(TransferOutput(owner: cheaterKey.publicKey, amount: held - value)) }
        let second = try Transfer.sign(
            input: input.heldRef, outputs: outputs, nonce: request.nonce, createdAt: clock.now, signer: cheaterKey)
        let bundle = try PaymentBundle(chains: [input.appending(second, holding: 0)])
        cheat(kind.rawValue, attempted: 1)
        doubleSpends.append(
            DoubleSpendRecord(kind: kind, state: input.heldRef.bytes, signer: cheaterKey.publicKey.bytes, account: c.account))
        do {
            _ = try wallet(victim).receive(bundle.encoded, for: request.nonce)
            if couldKnow { violation("a payee that saw the first spend of a state accepted a second one") }
            tallies[c.account, default: AccountTally()].sent += Int64(value)
            tallies[victim.account, default: AccountTally()].received += Int64(value)
            count("double-spends-accepted-offline")
        } catch WalletError.doubleSpendDetected(let proof) {
            count("double-spends-refused-offline")
            if proof.cheater?.bytes != cheaterKey.publicKey.bytes { violation("an offline fraud proof names the wrong key") }
            if !couldKnow { violation("a payee that could not know of the first spend refused the second as a double spend") }
        } catch {
            violation("a double-spend payment was refused for another reason (\(error.code)): \(error)")
            doubleSpends.removeLast()
        }
    }

    /// An honest payment, delivered once as bytes a cheater altered (a flipped byte, the
    /// payee's key swapped for the cheater's, inflated outputs, a forged note, a broken link)
    /// and then genuinely. The altered bytes must be refused offline and at the issuer, with
    /// no value moving; the genuine payment must then go through.
    func tamper() async throws {
        let kinds = [
            "tamper-flipped-byte", "tamper-redirected-output", "tamper-inflated-amount", "tamper-forged-note",
            "tamper-broken-link",
        ]
        let kind = kinds[rng.below(kinds.count)]
        guard let attacker = active(where: { $0.role == .cheater }), let q = active(excluding: [attacker], where: { !$0.cheats })
        else { return }
        let payee = try wallet(q)
        let thief = try wallet(attacker)
        let value = amount()
        if try payee.balance().riskBudgetLeft < value { try await sync(q) }
        let request = try wallet(q).createRequest(amount: value)
        guard let own = try thief.states(.available).first(where: { !$0.needsOnlineCheck && $0.amount > 0 }) else { return }
        let signer = thief.identity.signer
        var offline: [UInt8]
        var online: [UInt8]
        switch kind {
        case "tamper-flipped-byte":
            // A real payment from the cheater, one byte changed anywhere.
            guard let payment = try? thief.pay(request) else { return }
            offline = payment.bundle
            let i = rng.below(offline.count)
            offline[i] ^= UInt8(1 + rng.below(255))
            online = try PaymentBundle(decoding: payment.bundle).chains[0].encoded
            let j = rng.below(online.count)
            online[j] ^= UInt8(1 + rng.below(255))
            // Redeemed by the payee: only its own output could verify, and every byte but the
            // held index is signed or framing.
            try await deliverGenuine(
                payment, request: request, from: attacker, to: q, kind: kind, offline: offline, online: online, onlineBy: q)
            return
        case "tamper-redirected-output":
            // The cheater intercepts a payment to the payee and puts its own key in the output.
            guard let payment = try? thief.pay(request) else { return }
            offline = Self.replacing(request.payee.bytes, with: signer.publicKey.bytes, in: payment.bundle)
            online = Self.replacing(
                request.payee.bytes, with: signer.publicKey.bytes,
                in: try PaymentBundle(decoding: payment.bundle).chains[0].encoded)
            try await deliverGenuine(
                payment, request: request, from: attacker, to: q, kind: kind, offline: offline, online: online,
                onlineBy: attacker, offlineTo: attacker)
            return
        case "tamper-inflated-amount":
            // Signed by the rightful owner, but the outputs are worth more than the input.
            let held = own.amount
            let t = try Transfer.sign(
                input: own.ref, outputs: [TransferOutput(owner: request.payee, amount: held + value)], nonce: request.nonce,
                createdAt: clock.now, signer: signer)
            offline = try PaymentBundle(chains: [own.chain.appending(t, holding: 0)]).encoded
            let toSelf = try Transfer.sign(
                input: own.ref, outputs: [TransferOutput(owner: signer.publicKey, amount: held + value)], nonce: request.nonce,
                createdAt: clock.now, signer: signer)
            online = own.chain.appending(toSelf, holding: 0).encoded
        case "tamper-forged-note":
            // A note "issued" under the real issuing key's id, signed with the cheater's key.
            let note = try IssuedNote.issue(
                noteID: NoteID(uncheckedBytes: (0..<16).map { _ in UInt8(truncatingIfNeeded: rng.next()) }),
                currency: own.chain.note.currency,
                amount: value, owner: signer.publicKey, issuedAt: clock.now, expiresAt: clock.now + config.noteLifetime,
                issuer: ImpostorSigner(publicKey: issuingKey.publicKey, real: SoftwareSigner()))
            let t = try Transfer.sign(
                input: Chain(note: note).heldRef, outputs: [TransferOutput(owner: request.payee, amount: value)],
                nonce: request.nonce,
                createdAt: clock.now, signer: signer)
            offline = try PaymentBundle(chains: [Chain(note: note).appending(t, holding: 0)]).encoded
            online = Chain(note: note).encoded
        default:
            // The cheater's own note, followed by a transfer that spends some other state.
            let t = try Transfer.sign(
                input: StateRef(uncheckedBytes: (0..<32).map { _ in UInt8(truncatingIfNeeded: rng.next()) }),
                outputs: [TransferOutput(owner: request.payee, amount: own.amount)], nonce: request.nonce, createdAt: clock.now,
                signer: signer)
            offline = try PaymentBundle(chains: [own.chain.appending(t, holding: 0)]).encoded
            let toSelf = try Transfer.sign(
                input: StateRef(uncheckedBytes: (0..<32).map { _ in UInt8(truncatingIfNeeded: rng.next()) }),
                outputs: [TransferOutput(owner: signer.publicKey, amount: own.amount)], nonce: request.nonce,
                createdAt: clock.now, signer: signer)
            online = own.chain.appending(toSelf, holding: 0).encoded
        }
        let refusedOffline = try await refusedOffline(offline, request: request, payee: q)
        let refusedOnline = try await refusedOnline(online, by: attacker)
        cheat(
            kind, attempted: 2, detected: (refusedOffline ? 1 : 0) + (refusedOnline ? 1 : 0),
            attributed: (refusedOffline ? 1 : 0) + (refusedOnline ? 1 : 0))
        // The request stays open; the cheater pays nothing real for it.
    }

    /// Delivers the altered copy (to the payee, or to the cheater's own request for a
    /// redirected payment) and redeems the altered chain as the cheater, then the genuine payment.
    func deliverGenuine(
        _ payment: OutgoingPayment, request: PaymentRequest, from p: Member, to q: Member, kind: String, offline: [UInt8],
        online: [UInt8],
        onlineBy: Member, offlineTo: Member? = nil
    ) async throws {
        var refused: Bool
        if let thief = offlineTo {
            let own = try wallet(thief).createRequest(amount: payment.amount)
            refused = try await refusedOffline(offline, request: own, payee: thief)
        } else {
            refused = try await refusedOffline(offline, request: request, payee: q)
        }
        let refusedAtIssuer = try await refusedOnline(online, by: onlineBy)
        cheat(
            kind, attempted: 2, detected: (refused ? 1 : 0) + (refusedAtIssuer ? 1 : 0),
            attributed: (refused ? 1 : 0) + (refusedAtIssuer ? 1 : 0))
        let got = try wallet(q).receive(payment.bundle, for: request.nonce)
        try wallet(p).confirm(receipt: got.receipt.encoded)
        tallies[p.account, default: AccountTally()].sent += Int64(payment.amount)
        tallies[q.account, default: AccountTally()].received += Int64(payment.amount)
        report.payments += 1
    }

    /// Whether the payee's wallet refused `bytes` for `request` and nothing it holds changed.
    func refusedOffline(_ bytes: [UInt8], request: PaymentRequest, payee: Member) async throws -> Bool {
        let w = try wallet(payee)
        let before = try w.balance()
        do {
            _ = try w.receive(bytes, for: request.nonce)
            violation("a tampered payment was accepted offline by account \(payee.account)")
            return false
        } catch {
            count("tampered-refused-offline-\(error.code)")
        }
        let after = try w.balance()
        if after != before { violation("a refused tampered payment changed the payee's balance: \(before) → \(after)") }
        return after == before
    }

    /// Whether the issuer refused to credit `chain` to the member's account, changing nothing.
    func refusedOnline(_ chain: [UInt8], by m: Member) async throws -> Bool {
        let before = try await issuer.account(m.account).balance
        let result = try await issuer.redeem(account: m.account, chains: [chain])[0]
        let after = try await issuer.account(m.account).balance
        guard case .invalid(let code, _) = result else {
            violation("the issuer answered \(result) to a tampered chain redeemed by account \(m.account)")
            return false
        }
        count("tampered-refused-online-\(code)")
        if after != before { violation("a refused tampered chain changed account \(m.account)'s balance by \(after - before)") }
        return after == before
    }

    static func replacing(_ old: [UInt8], with new: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        var out = bytes
        var i = out.count - old.count
        while i >= 0 {
            if Array(out[i..<i + old.count]) == old {
                out.replaceSubrange(i..<i + old.count, with: new)
                return out
            }
            i -= 1
        }
        return out
    }

    /// An honest payment delivered again: for the same request (the same receipt, nothing
    /// added), for a new request (refused), then its chain redeemed twice and by a stranger.
    func replay() async throws {
        guard let p = active(), let q = active(excluding: [p], where: { !$0.cheats }),
            let (request, payment) = try await pay(p, q, amount())
        else { return }
        let w = try wallet(q)
        let before = try w.balance()
        let again = try w.receive(payment.bundle, for: request.nonce)
        let after = try w.balance()
        let same = again.id == payment.id && after == before
        if !same { violation("a replayed payment changed the payee's wallet") }
        let other = try w.createRequest(amount: payment.amount)
        let refused: Bool
        do {
            _ = try w.receive(payment.bundle, for: other.nonce)
            violation("a payment replayed for a second request was accepted")
            refused = false
        } catch {
            count("replays-refused-offline-\(error.code)")
            refused = (try w.balance()) == before
        }
        cheat(
            "replay-offline", attempted: 2, detected: (same ? 1 : 0) + (refused ? 1 : 0),
            attributed: (same ? 1 : 0) + (refused ? 1 : 0))
        // Online: the payee redeems (its sync), then the same chain again, then a stranger tries it.
        try await sync(q)
        let chain = try PaymentBundle(decoding: payment.bundle).chains[0].encoded
        let balance = try await issuer.account(q.account).balance
        let twice = try await issuer.redeem(account: q.account, chains: [chain])[0]
        let unchanged = try await issuer.account(q.account).balance == balance
        var ok = unchanged
        if case .alreadyCredited = twice {
        } else if !q.neverRedeems {
            ok = false
            violation("a chain redeemed twice was answered \(twice)")
        }
        var strangerRefused = false
        if let stranger = active(excluding: [p, q]) {
            strangerRefused = try await refusedOnline(chain, by: stranger)
        }
        cheat(
            "replay-online", attempted: 2, detected: (ok ? 1 : 0) + (strangerRefused ? 1 : 0),
            attributed: (ok ? 1 : 0) + (strangerRefused ? 1 : 0))
    }

    // MARK: One request, two payers (§5.2 rule 4)

    /// Two payers pay one displayed request (a shop's QR code scanned twice): the payee takes
    /// the first payment and refuses the second (`request_already_paid`). The payee redeems the
    /// first at its sync; the refused payer's sync announces its payment (no receipt came
    /// back), and at expiry the issuer refunds it to that payer. Only the first payment is
    /// tallied, so every-account-exact fails if the refused one reaches the payee.
    func twoPayersPayOneRequest() async throws {
        guard let q = active(where: { !$0.cheats && !$0.neverRedeems }),
            let p1 = active(excluding: [q], where: { !$0.cheats }),
            let p2 = active(excluding: [q, p1], where: { !$0.cheats }),
            let (request, _) = try await pay(p1, q, amount())
        else { return }
        let second: OutgoingPayment
        do {
            second = try wallet(p2).pay(request)
        } catch {
            try await sync(p2, recharge: request.amount)
            guard let signed = try? wallet(p2).pay(request) else {
                count("second-payments-skipped")
                return
            }
            second = signed
        }
        do {
            _ = try wallet(q).receive(second.bundle, for: request.nonce)
            violation("a payee took two payments for one request")
        } catch WalletError.requestAlreadyPaid {
            count("second-payments-refused")
        }
        try await sync(q)
        try await sync(p2)
    }

    // MARK: Restores (§5.2 rule 5)

    /// Backs up the member's wallet, restores it to a new device (new key, registered to the
    /// same account); returns the old device's directory.
    func restore(_ m: Member, from backup: [UInt8]) async throws -> String {
        m.restores += 1
        let directory = root + "/w\(m.index)-restore\(m.restores)"
        let restored = try Wallet.restore(
            backup, passphrase: Self.passphrase, into: directory, keyCost: .testing, environment: env)
        try await registerKey(restored, account: m.account)
        m.oldDevices.append(m.directory)
        m.directory = directory
        m.keys.append(restored.publicKey.bytes)
        keepOpen(restored, at: directory)
        count("restores")
        return m.oldDevices[m.oldDevices.count - 1]
    }

    /// An honest user restores once: the old device paid someone after the backup, the restore
    /// exchanged that state, then the payee redeems: paid from the account, a restore conflict,
    /// not fraud, not frozen.
    func restoreOnce(_ m: Member) async throws {
        try await recharge(m, target: 20_000)
        let backup = try wallet(m).exportBackup(passphrase: Self.passphrase, cost: .testing)
        guard let payee = active(excluding: [m], where: { !$0.cheats }), try await pay(m, payee, amount()) != nil else { return }
        m.role = .restorer
        restorerAccounts.insert(m.account)
        _ = try await restore(m, from: backup)
        try await sync(m)
        try await sync(payee)
        count("restore-conflicts-staged")
    }

    /// An honest user restores one backup on two devices in turn. The second restore finds
    /// every note already exchanged by the first: each is retired (`already_exchanged`), and
    /// its exchange buys nothing and charges the account nothing.
    func restoreSameBackupTwice(_ m: Member) async throws {
        try await recharge(m, target: 20_000)
        let backup = try wallet(m).exportBackup(passphrase: Self.passphrase, cost: .testing)
        _ = try await restore(m, from: backup)
        try await sync(m)
        _ = try await restore(m, from: backup)
        let again = try wallet(m).restoredStates()
        guard !again.isEmpty else { return }
        let before = try await issuer.account(m.account).balance
        let out = try await issuer.refresh(
            account: m.account, walletKey: try wallet(m).publicKey, chains: again.map(\.chain.encoded), restore: true)
        let after = try await issuer.account(m.account).balance
        var retired = 0
        for result in out.results {
            switch result {
            case .invalid(let code, _) where code == "already_exchanged": retired += 1
            case .invalid(let code, _) where code == "already_spent" || code == "expired": break
            default: violation("a note another restore had exchanged was answered \(result)")
            }
        }
        if !out.notes.isEmpty || after != before {
            violation(
                "restoring one backup twice bought \(out.notes.count) note(s) and moved the account from \(before) to \(after)")
        }
        var outcomes: [StateRef: RestoreOutcome] = [:]
        for (state, result) in zip(again, out.results) {
            if case .invalid(let code, _) = result, code == "already_exchanged" || code == "already_spent" {
                outcomes[state.ref] = .alreadySpent
            }
            if case .invalid(let code, _) = result, code == "expired" { outcomes[state.ref] = .expired }
        }
        try wallet(m).applyRestoreExchange(outcomes, fresh: [])
        count("restores-of-one-backup-twice")
        count("restored-states-already-exchanged", retired)
        try await sync(m)
    }

    /// A cheater restores twice: the first restore's conflict is forgiven, the second's is fraud
    /// (the account frozen, the old device's key named), and the payee is still paid.
    func restoreTwice(_ m: Member) async throws {
        try await recharge(m, target: 20_000)
        let first = try wallet(m).exportBackup(passphrase: Self.passphrase, cost: .testing)
        guard let p1 = active(excluding: [m], where: { !$0.cheats }), try await pay(m, p1, amount()) != nil else { return }
        let oldDirectory = try await restore(m, from: first)
        try await sync(m)
        try await sync(p1)
        // The old device buys fresh notes, is backed up again, and spends a fresh note.
        let old = try wallet(at: oldDirectory)
        try await fund(m, 200_000)
        let fresh = try await issuer.purchase(
            account: m.account, walletKey: old.publicKey, amount: 5_000, idempotencyKey: nextKey())
        try old.deposit(fresh)
        let second = try old.exportBackup(passphrase: Self.passphrase, cost: .testing)
        guard let p2 = active(excluding: [m, p1], where: { !$0.cheats }) else { return }
        let value = min(5_000, amount())
        if try wallet(p2).balance().riskBudgetLeft < value { try await sync(p2) }
        let request = try wallet(p2).createRequest(amount: value)
        let note = fresh[0]
        let t = try Transfer.sign(
            input: note.heldRef,
            outputs: [TransferOutput(owner: request.payee, amount: value)]
                + (value < 5_000 ? [TransferOutput(owner: old.publicKey, amount: 5_000 - value)] : []),
            nonce: request.nonce, createdAt: clock.now, signer: old.identity.signer)
        _ = try wallet(p2).receive(try PaymentBundle(chains: [note.appending(t, holding: 0)]).encoded, for: request.nonce)
        tallies[m.account, default: AccountTally()].sent += Int64(value)
        tallies[p2.account, default: AccountTally()].received += Int64(value)
        cheat(DoubleSpendRecord.Kind.secondRestore.rawValue, attempted: 1)
        doubleSpends.append(
            DoubleSpendRecord(kind: .secondRestore, state: note.heldRef.bytes, signer: old.publicKey.bytes, account: m.account))
        _ = try await restore(m, from: second)
        try await sync(m)
        try await sync(p2)
    }
}
