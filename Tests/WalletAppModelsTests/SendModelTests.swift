import Foundation
import OfflineNotes
import Testing
import WalletAppModels

@MainActor
@Suite struct SendModelTests {
    let fixture: MessageFixture
    let clock = TestClock(MessageFixture.now)
    init() throws { fixture = try MessageFixture() }

    func model(offline: UInt64 = 10_000, settled: UInt64 = 3_000, locale: String = "en_US") -> SendModel {
        SendModel(
            currency: fixture.eur, offlineSpendable: offline, settled: settled, clock: clock,
            locale: Locale(identifier: locale))
    }

    @Test func openTapAQuickAmountTypeANoteAndSendNeedsNoOtherTap() throws {
        let send = model()
        send.useRequest(try fixture.request(0))  // an open-amount request, as if scanned first
        send.appear()
        #expect(send.focus.focused == .amount, "the amount is focused when the sheet appears")
        send.tapQuickAmount(25)
        #expect(send.amount.minorUnits == 2_500)
        #expect(send.focus.focused == .description, "a quick amount moves on to the description")
        send.note = "Coffee"
        send.focusNext()  // Return on the last field submits
        #expect(
            send.confirmation
                == SendModel.Summary(
                    recipientName: "Bob's Café", amount: 2_500, currency: fixture.eur, method: .qr, description: "Coffee",
                    remaining: 7_500, payeeKeyID: "\(try fixture.request(0).payee.keyID)"))
        #expect(send.confirmation?.payeeKeyID?.count == 16, "the whole key id, not the 8 digits a device advertises")
        #expect(send.focus.focused == nil)
    }

    @Test func quickAmountsReplaceTheTypedAmount() {
        let send = model(locale: "de_DE")
        send.amountText = "7,5"
        send.tapQuickAmount(10)
        #expect(send.amountText == "10,00", "the locale's separator")
        send.tapQuickAmount(50)
        #expect(send.amount.minorUnits == 5_000, "50 replaces 10, it does not make 60")
        #expect(send.amount.selectedQuickAmount == 50)
    }

    @Test func theChecklistSaysWhatIsMissingInOrder() throws {
        let send = model()
        #expect(send.missing == [.recipient, .amount(nil)])
        #expect(!send.canSend)
        #expect(send.summary == nil)
        send.amountText = "12.345"
        #expect(send.missing == [.recipient, .amount(.tooManyDecimals(allowed: 2, currency: fixture.eur))])
        send.amountText = "150"
        #expect(send.missing == [.recipient, .funds(shortBy: 5_000, currency: fixture.eur)])
        #expect(send.balanceLine == .insufficient(shortBy: 5_000))
        #expect(send.amount.validity == .invalid(.tooMuch(maximum: 10_000, currency: fixture.eur)), "red border")
        send.amountText = "40"
        #expect(send.balanceLine == .remaining(6_000))
        send.useRequest(try fixture.request(0))
        #expect(send.missing.isEmpty)
        #expect(send.canSend)
        #expect(send.sendButtonTitle == "Via QR")
    }

    @Test func submittingTooEarlyFocusesWhatToFix() {
        let send = model()
        send.appear()
        send.submit()
        #expect(send.confirmation == nil)
        #expect(send.focus.focused == .recipient)
        send.recipientText = "carol@example.com"
        send.submit()
        #expect(send.focus.focused == .amount)
    }

    @Test func aFixedAmountRequestFillsAndLocksTheAmount() throws {
        let send = model()
        send.amountText = "3"
        send.useRequest(try fixture.request(1_250))
        #expect(send.amountText == "12.50")
        #expect(send.isAmountLocked)
        send.amountText = "99"
        send.tapQuickAmount(100)
        #expect(send.amount.minorUnits == 1_250, "the request's amount cannot be changed")
        #expect(send.focus.focused == .description, "nothing to type in the amount")
        send.clearRequest()
        #expect(!send.isAmountLocked)
        #expect(send.recipient == nil)
    }

    @Test func methodAndRecipientMustAgreeAndAvailableFollowsTheMethod() throws {
        let send = model(offline: 10_000, settled: 3_000)
        send.amountText = "40"
        send.recipientText = "carol@example.com"
        #expect(send.method == .online, "a typed account is paid online")
        #expect(send.available == 3_000)
        #expect(send.missing == [.funds(shortBy: 1_000, currency: fixture.eur)], "online spends the settled balance")
        send.method = .bluetooth
        #expect(send.missing == [.requestForOffline])
        #expect(send.allowedMethods == [.online])

        let request = try PaymentRequest(
            payee: fixture.bob.publicKey, currency: fixture.eur, amount: 0, nonce: fixture.nonce(),
            expiresAt: fixture.now + 60, payeeName: "Bob", hints: [.tcp("127.0.0.1:9999")])
        send.method = .online
        send.useRequest(request)
        #expect(send.method == .bluetooth, "the payee listens nearby")
        #expect(send.recipientText == "Bob")
        #expect(send.allowedMethods == [.qr, .bluetooth])
        #expect(send.missing.isEmpty)
        send.method = .online
        #expect(send.missing == [.offlineForRequest, .funds(shortBy: 1_000, currency: fixture.eur)])
        send.recipientText = "dave@example.com"
        #expect(send.recipient == .account("dave@example.com"), "typing replaces the scanned request")
        send.recipientText = "dave"
        #expect(send.missing.contains(.validAccount))
    }

    @Test func expiredAndForeignRequestsAreRefused() throws {
        let send = model()
        send.useRequest(try fixture.request(500))
        #expect(send.missing.isEmpty)
        clock.advance(600)
        #expect(send.missing == [.freshRequest], "expired at exactly its expiry time")
        let dollars = try PaymentRequest(
            payee: fixture.bob.publicKey, currency: Currency("USD")!, amount: 500, nonce: fixture.nonce(),
            expiresAt: clock.now() + 600)
        send.useRequest(dollars)
        #expect(send.missing == [.currency(requested: Currency("USD")!, held: fixture.eur)])
        send.submit()
        #expect(send.confirmation == nil)
    }

    @Test func balancesArrivingLaterUpdateTheLimit() throws {
        let send = model(offline: 1_000)
        send.useRequest(try fixture.request(0))
        send.amountText = "25"
        #expect(send.missing == [.funds(shortBy: 1_500, currency: fixture.eur)])
        send.offlineSpendable = 5_000  // a purchase or an incoming payment landed
        #expect(send.missing.isEmpty)
        send.submit()
        #expect(send.confirmation?.remaining == 2_500)
        send.dismissConfirmation()
        #expect(send.confirmation == nil)
    }

    @Test func requirementMessagesSayWhatToDo() {
        #expect(SendModel.Requirement.funds(shortBy: 150, currency: fixture.eur).description.contains("1.50 EUR more"))
        #expect(SendModel.Requirement.freshRequest.description.contains("new one"))
        #expect(SendModel.Requirement.amount(nil).description == "Enter an amount.")
    }
}
