import Foundation
import IssuerCore
import OfflineNotes
import Synchronization
import Testing
import WalletAppModels
import WalletCore
import WalletFlows
import WalletSync
import WalletTestSupport

/// The Deposit and Withdraw screens against a real issuer on loopback: without escrow settlement,
/// and with a stand-in escrow monitor (the books as in escrow mode; payouts settled by hand, as
/// the payout sender would).
@Suite("Deposit and Withdraw models")
@MainActor
struct EscrowModelsTests {
    static let us = Locale(identifier: "en_US")
    static let eur = Currency("EUR")!
    static let address = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"

    // MARK: Deposit

    @Test func depositShowsTheTwoRequestsAndFollowsTheAmount() async throws {
        try await LoopbackIssuer.with(escrow: StandInEscrow()) { h in
            let (session, _) = try await h.loggedIn("depositor")
            let deposit = DepositModel(session: session, currency: Self.eur, locale: Self.us)
            #expect(deposit.phase == .loading && deposit.plan == nil)
            await deposit.load()
            guard case .ready(let instructions) = deposit.phase else {
                Issue.record("\(deposit.phase)")
                return
            }
            let escrow = StandInEscrow().info.escrow, token = StandInEscrow().info.token
            #expect(deposit.accountReference == instructions.accountRef && deposit.escrowAddress == escrow)
            // No amount: the Ethereum wallet asks for it.
            #expect(deposit.depositURI == "ethereum:\(escrow)@31337/deposit?bytes32=\(instructions.accountRef)")
            #expect(deposit.approveURI == "ethereum:\(token)@31337/approve?address=\(escrow)")
            #expect(deposit.summaryText?.contains("the amount you choose") == true)
            #expect(deposit.phaseText == nil)

            deposit.amount.text = "12.34"
            #expect(deposit.depositURI == "ethereum:\(escrow)@31337/deposit?uint256=1234&bytes32=\(instructions.accountRef)")
            #expect(deposit.approveURI == "ethereum:\(token)@31337/approve?address=\(escrow)&uint256=1234")
            #expect(
                deposit.summaryText?.contains("12.34 EUR") == true && deposit.summaryText?.contains("3 confirmations") == true)
            let copy = try #require(deposit.copyText)
            #expect(
                copy.contains(deposit.depositURI ?? "-") && copy.contains(deposit.approveURI ?? "-")
                    && copy.contains(instructions.accountRef))

            // Text that is not an amount makes no request (one without it would be mistaken for one with it).
            deposit.amount.text = "1.234"
            #expect(deposit.plan == nil && deposit.depositURI == nil)
            #expect(deposit.amountError == .tooManyDecimals(allowed: 2, currency: Self.eur))
            // A quick amount replaces the text.
            deposit.tapQuickAmount(25)
            #expect(deposit.amount.text == "25.00" && deposit.depositURI?.contains("uint256=2500&") == true)
            deposit.focus.focus(.amount)
            deposit.focusNext()  // Return on the only field: the keyboard goes away
            #expect(deposit.focus.focused == nil)
        }
    }

    @Test func depositWithoutEscrowSettlementOrWithAScaledTokenIsRefused() async throws {
        try await LoopbackIssuer.with { h in
            let (session, _) = try await h.loggedIn("no-escrow")
            let deposit = DepositModel(session: session, currency: Self.eur, locale: Self.us)
            await deposit.load()
            #expect(deposit.phase == .notAvailable && !deposit.canRetry)
            #expect(deposit.phaseText?.contains("does not settle through an escrow") == true)
            #expect(deposit.depositURI == nil && deposit.copyText == nil)
        }
        // An 18-decimal token: 12.34 EUR would be 1234 wei-like units, a fraction of a cent.
        let scaled = StandInEscrow(
            info: EscrowInfo(
                chainID: 1, escrow: StandInEscrow().info.escrow, token: StandInEscrow().info.token, decimals: 18,
                confirmations: 12)
        )
        try await LoopbackIssuer.with(escrow: scaled) { h in
            let (session, _) = try await h.loggedIn("scaled")
            let deposit = DepositModel(session: session, currency: Self.eur, locale: Self.us)
            await deposit.load()
            guard case .failed(let message, let canRetry) = deposit.phase else {
                Issue.record("\(deposit.phase)")
                return
            }
            #expect(!canRetry && message.contains("18 decimals"))
            #expect(deposit.depositURI == nil)
        }
    }

    @Test func depositOfflineCanBeRetried() async throws {
        let stranded = Mutex<(session: WalletSession, directory: String)?>(nil)
        try await LoopbackIssuer.with(escrow: StandInEscrow()) { h in
            let kept = try await h.loggedInOutliving("offline-depositor")
            stranded.withLock { $0 = kept }
        }
        let (session, directory) = try #require(stranded.withLock { $0 })
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let deposit = DepositModel(session: session, currency: Self.eur, locale: Self.us)
        await deposit.load()
        #expect(deposit.canRetry)
        #expect(deposit.phaseText?.contains("Cannot reach the issuer") == true)
    }

    // MARK: Withdraw: the form

    /// Send's amount rules, the address's form, the checklist in order, focus to the field to fix.
    @Test func withdrawFormValidation() async throws {
        try await LoopbackIssuer.with(escrow: StandInEscrow()) { h in
            let (session, _) = try await h.loggedIn("form", funds: 5_000)
            let model = WithdrawModel(session: session, currency: Self.eur, settled: 5_000, locale: Self.us)
            model.appear()
            #expect(model.focus.focused == .amount)
            #expect(model.missing == [.amount(nil), .address(.empty)] && !model.canWithdraw)
            #expect(model.addressError == nil, "no error before anything is typed")
            #expect(model.addressText == AddressFormat.checksumNote)

            for (text, error) in [
                ("1.234", AmountEntryError.tooManyDecimals(allowed: 2, currency: Self.eur)), ("0", .zero), ("-5", .notANumber),
                ("1,000.50", .moreThanOneSeparator),
            ] {
                model.amount.text = text
                #expect(model.missing.first == .amount(error), "\(text)")
            }
            model.amount.text = "50.01"
            #expect(model.missing.first == .funds(shortBy: 1, currency: Self.eur))
            #expect(model.balanceLineText == "Insufficient balance: 0.01 EUR short")
            model.submit()
            #expect(model.phase == .editing && model.focus.focused == .amount)

            // A quick amount replaces the text and moves on to the address.
            model.tapQuickAmount(25)
            #expect(model.amount.text == "25.00" && model.focus.focused == .address)
            #expect(model.balanceLineText == "Remaining: 25.00 EUR")
            model.address = "0x1234"
            #expect(model.addressError == .wrongLength(4) && model.addressText.contains("this one has 4"))
            model.submit()
            #expect(model.phase == .editing && model.focus.focused == .address)
            model.address = "0x" + String(repeating: "0", count: 40)
            #expect(model.missing == [.address(.zero)])

            // Return walks amount → address → submit: the confirmation.
            model.address = " \(Self.address) "
            #expect(model.missing.isEmpty && model.canWithdraw)
            model.focus.focus(.amount)
            model.focusNext()
            #expect(model.focus.focused == .address)
            model.focusNext()
            #expect(model.focus.focused == nil)
            guard case .confirming(let summary) = model.phase else {
                Issue.record("\(model.phase)")
                return
            }
            #expect(summary.amount == 2_500 && summary.address == Self.address && summary.remaining == 2_500)
            #expect(summary.confirmationText.contains("Withdraw 25.00 EUR to \(Self.address)?"))
            model.edit()
            #expect(model.phase == .editing && model.amount.text == "25.00")
            #expect(try await session.account().balance == 5_000, "nothing sent")
        }
    }

    // MARK: Withdraw: the flow

    /// Confirm → debited → followed (every `pollSeconds` on the screen's clock) → paid; the
    /// list shows each withdrawal's payout status.
    @Test func withdrawIsFollowedUntilPaid() async throws {
        try await LoopbackIssuer.with(escrow: StandInEscrow()) { h in
            let (session, _) = try await h.loggedIn("payee", funds: 10_000)
            let clock = TestClock(1_800_000_000)
            let model = WithdrawModel(session: session, currency: Self.eur, settled: 0, clock: clock, locale: Self.us)
            await model.load()
            #expect(model.settled == 10_000 && model.recent.isEmpty && model.loadError == nil)
            let (run, started) = await Self.confirm(model, amount: "40")
            defer { run.cancel() }
            let pending = try #require(started)
            #expect(pending.status == .pending && pending.amount == 4_000)
            #expect(model.settled == 6_000 && model.recent.map(\.id) == [pending.id])
            #expect(model.phaseText?.contains("is debited") == true)
            #expect(try await session.account().balance == 6_000)

            let tx = try await h.settle(pending.id, as: .sent)
            #expect(
                await untilTrue {
                    clock.advance(model.pollSeconds)
                    if case .tracking(let w) = model.phase { return w.status == .sent } else { return false }
                })
            #expect(model.phaseText?.contains(tx) == true)
            try await h.settle(pending.id, as: .paid)
            #expect(
                await untilTrue {
                    clock.advance(model.pollSeconds)
                    return model.phase == .finished(model.recent[0]) && model.recent[0].status == .paid
                })
            await run.value
            #expect(model.phaseText?.hasPrefix("Paid 40.00 EUR to \(Self.address)") == true)
            #expect(model.recentTexts.first?.hasPrefix("Paid 40.00 EUR") == true)
            await model.load()
            #expect(model.recent.map(\.status) == [.paid] && model.settled == 6_000)
        }
    }

    @Test func aRefusedPayoutSaysTheMoneyIsBack() async throws {
        try await LoopbackIssuer.with(escrow: StandInEscrow()) { h in
            let (session, _) = try await h.loggedIn("refused", funds: 10_000)
            let clock = TestClock(1_800_000_000)
            let model = WithdrawModel(session: session, currency: Self.eur, settled: 10_000, clock: clock, locale: Self.us)
            let (run, started) = await Self.confirm(model, amount: "10")
            defer { run.cancel() }
            let pending = try #require(started)
            try await h.settle(pending.id, as: .refused, reason: "paused")
            #expect(
                await untilTrue {
                    clock.advance(model.pollSeconds)
                    if case .finished(let w) = model.phase { return w.status == .refused } else { return false }
                })
            #expect(
                model.phaseText
                    == "The blockchain refused the payout of 10.00 EUR to \(Self.address) (paused); the amount is back on your account."
            )
            #expect(try await session.account().balance == 10_000)
        }
    }

    /// Every failure is typed and says what to do; nothing is debited by any of them, and a
    /// lost answer is made once when confirmed again.
    @Test func withdrawFailures() async throws {
        try await LoopbackIssuer.with { h in
            let (session, store) = try await h.loggedIn("no-escrow", funds: 1_000)
            let model = WithdrawModel(session: session, currency: Self.eur, settled: 1_000, locale: Self.us)
            model.amount.text = "5"
            model.address = Self.address
            model.submit()
            await model.withdraw()
            #expect(model.phase == .failed(.notAvailable))
            #expect(model.phaseText?.contains("does not settle through an escrow") == true)
            #expect(try store.loadFlowState().pendingWithdrawal == nil)
            await model.load()
            #expect(model.loadError?.contains("does not settle through an escrow") == true)
        }
        try await LoopbackIssuer.with(escrow: StandInEscrow()) { h in
            let requests = Mutex(0)
            let (session, store) = try await h.loggedIn("lossy", funds: 1_000) { url in
                // The third withdrawal request's answer is lost (the first two are refusals).
                IssuerClient(
                    serverURL: url,
                    transport: LosingTransport { operation in
                        operation == "requestWithdrawal"
                            && requests.withLock { count in
                                count += 1
                                return count == 3
                            }
                    })
            }
            let model = WithdrawModel(session: session, currency: Self.eur, settled: 1_000, locale: Self.us)
            // Refused by the issuer (single-case stand-in: mixed case as a wrong checksum).
            model.amount.text = "5"
            model.address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
            model.submit()
            await model.withdraw()
            guard case .failed(.invalidAddress(let detail)) = model.phase else {
                Issue.record("\(model.phase)")
                return
            }
            #expect(detail.contains("'to' is not a usable address"))
            // Not enough on the account per the issuer (the screen's balance was stale).
            model.edit()
            model.settled = 100_000
            model.amount.text = "20"
            model.address = Self.address
            model.submit()
            await model.withdraw()
            guard case .failed(.insufficientFunds) = model.phase else {
                Issue.record("\(model.phase)")
                return
            }
            #expect(try await session.account().balance == 1_000)
            // The answer is lost: kept; confirming the same again makes it once.
            model.edit()
            model.amount.text = "5"
            model.submit()
            await model.withdraw()
            #expect(model.phase == .failed(.offline))
            #expect(model.phaseText?.contains("made once, never twice") == true)
            #expect(try store.loadFlowState().pendingWithdrawal?.amount == 500)
            model.edit()
            model.submit()
            let run = Task { await model.withdraw() }
            defer { run.cancel() }
            #expect(await untilTrue { if case .tracking = model.phase { true } else { false } })
            #expect(try await session.account().balance == 500)
            #expect(try await session.client.withdrawals().count == 1)
            #expect(try store.loadFlowState().pendingWithdrawal == nil)
        }
    }

    /// Types `amount` and the address, confirms, and starts the withdrawal (which goes on
    /// following the payout); returns its task and the withdrawal once it is being followed.
    static func confirm(_ model: WithdrawModel, amount: String) async -> (Task<Void, Never>, EscrowWithdrawal?) {
        model.amount.text = amount
        model.address = address
        model.submit()
        let run = Task { await model.withdraw() }
        _ = await untilTrue { if case .tracking = model.phase { true } else { false } }
        guard case .tracking(let withdrawal) = model.phase else { return (run, nil) }
        return (run, withdrawal)
    }

    // MARK: The app's factories

    @Test func theAppMakesTheEscrowSheetsOnItsSession() async throws {
        try await LoopbackIssuer.with(escrow: StandInEscrow()) { h in
            let (session, _) = try await h.loggedIn("app", funds: 3_000)
            let settings = InMemorySettingsStore()
            let app = AppModel(
                settings: settings, connectivity: ManualConnectivity(.offline), scheduler: RecordingScheduler(),
                notifier: RecordingNotifier(), lock: LockModel(gate: NoBiometrics(), settings: settings))
            #expect(app.makeDeposit() == nil && app.makeWithdraw() == nil, "nothing before start")
            app.start(wallet: AsyncWallet(session.wallet), session: session)
            let home = try #require(app.home)
            home.appear()
            defer { home.disappear() }
            #expect(await untilTrue { home.settled == 3_000 })
            let deposit = try #require(app.makeDeposit(locale: Self.us))
            #expect(deposit.session === session && deposit.currency == Self.eur)
            await deposit.load()
            #expect(deposit.depositURI != nil)
            let withdraw = try #require(app.makeWithdraw(locale: Self.us))
            #expect(withdraw.session === session && withdraw.settled == 3_000 && withdraw.amount.maximum == 3_000)
        }
    }
}
