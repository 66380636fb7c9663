import Foundation
import Testing
import WalletAppModels
import WalletCore
import WalletFlows
import WalletSync
import WalletTestSupport

/// Onboarding against a real issuer on loopback: every step, and the errors a person can reach.
@MainActor
@Suite struct OnboardingModelTests {
    static func model(
        _ h: LoopbackIssuer, store: MemoryFlowStore = MemoryFlowStore(), directory: String? = nil
    ) -> OnboardingModel {
        OnboardingModel(
            walletDirectory: directory ?? h.dir + "/onboard-" + UUID().uuidString.prefix(6), credentials: store, flowState: store,
            keyCost: .testing)
    }

    static func email(_ name: String) -> String { "\(name)-\(UUID().uuidString.prefix(6))@onboarding.test" }

    @Test func registerCreateTheWalletAndBuy() async throws {
        try await LoopbackIssuer.with { h in
            let store = MemoryFlowStore()
            let directory = h.dir + "/ann-wallet"
            let model = Self.model(h, store: store, directory: directory)
            model.appear()
            #expect(model.step == .server && model.focus.focused == .server, "the server field has the keyboard at once")
            model.server = h.baseURL.absoluteString
            await model.submitStep()
            #expect(model.error == nil)
            #expect(model.step == .account && model.focus.focused == .email)

            model.email = Self.email("ann")
            model.password = "short"
            #expect(model.validationMessages[.password] != nil && !model.canSubmit)
            model.password = "correct horse battery"
            #expect(model.focus.returnSubmits == false, "Return on the email field moves on (Next)")
            model.focus.next()
            #expect(model.focus.focused == .password && model.focus.returnSubmits, "the password's Return is Done")
            await model.submitStep()
            #expect(model.error == nil)
            #expect(model.step == .wallet && model.focus.focused == .passphrase)
            #expect(model.mode == .logIn, "registered: going back and on again logs in, it does not register twice")

            model.passphrase = "wallet pass 1"
            model.passphraseConfirmation = "wallet pass 2"
            #expect(model.validationMessages[.passphraseConfirmation] != nil && !model.canSubmit)
            await model.submitStep()
            #expect(model.error == .passphraseMismatch && model.step == .wallet)
            model.passphraseConfirmation = "wallet pass 1"
            await model.submitStep()
            #expect(model.error == nil)
            #expect(model.step == .done)
            let result = try #require(model.result)
            #expect(model.password.isEmpty && model.passphrase.isEmpty, "secrets are not kept in the model after use")

            // The login was saved and the wallet key registered: the wallet can buy at once.
            #expect(try store.loadLogin().refreshToken != nil)
            try await result.session.client.fund(5_000)
            #expect(try await result.session.purchase(2_000) == 2_000)
            #expect(try await result.wallet.balance().spendable == 2_000)
            // The passphrase protects the key: the wallet does not open without it.
            #expect(throws: (any Error).self) { try Wallet.open(directory: directory) }
        }
    }

    @Test func anUnreachableServerStopsAtTheServerStep() async throws {
        let store = MemoryFlowStore()
        let model = OnboardingModel(
            walletDirectory: NSTemporaryDirectory() + "unused-" + UUID().uuidString, credentials: store, flowState: store)
        model.server = "not a url"
        #expect(model.validationMessages[.server] != nil && !model.canSubmit)
        await model.submitStep()
        #expect(model.error == .invalidServer("not a url") && model.step == .server)
        // Port 1 on loopback: nothing listens, the connection is refused.
        model.server = "http://127.0.0.1:1"
        await model.submitStep()
        guard case .serverUnreachable = model.error else {
            Issue.record("expected serverUnreachable, got \(String(describing: model.error))")
            return
        }
        #expect(model.step == .server && model.activity == nil)
    }

    @Test func aTakenEmailAndAWrongPasswordStopAtTheAccountStep() async throws {
        try await LoopbackIssuer.with { h in
            let email = Self.email("taken")
            _ = try await IssuerClient(serverURL: h.baseURL).register(email: email, password: "correct horse battery")

            let model = Self.model(h)
            model.server = h.baseURL.absoluteString
            await model.submitStep()
            model.mode = .register
            model.email = email
            model.password = "another password"
            await model.submitStep()
            #expect(model.error == .emailTaken && model.step == .account)

            model.mode = .logIn
            await model.submitStep()
            #expect(model.error == .wrongPassword && model.step == .account)

            model.password = "correct horse battery"
            await model.submitStep()
            #expect(model.error == nil && model.step == .wallet, "the right password goes on to the wallet")
            model.passphrase = "short"
            model.passphraseConfirmation = "short"
            await model.submitStep()
            #expect(model.error == .weakPassphrase(minimum: OnboardingModel.minimumPassphraseLength))
            model.passphrase = ""
            model.passphraseConfirmation = ""
            await model.submitStep()
            #expect(model.step == .done, "no passphrase is allowed")
        }
    }
}
