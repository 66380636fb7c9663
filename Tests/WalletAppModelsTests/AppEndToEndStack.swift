import Foundation
import NearbySession
import Observation
import OfflineNotes
import QRPayload
import Testing
import WalletAppModels
import WalletCore
import WalletFlows
import WalletSync
import WalletTestSupport

/// One person's whole app, as the iOS app assembles it: the platform services (Linux doubles),
/// the `AppModel` every tab shares, and the screen models opened over it — on a real wallet in
/// its own directory, logged in to the real issuer through onboarding. The end-to-end tests
/// (AppEndToEndTests) drive two or three of these against one `LoopbackIssuer`.
///
/// Everything the tests assert on a home screen comes from `home`, which is fed only by
/// observation (the wallet's snapshot stream, the app's syncs): nothing here refreshes it.
@MainActor
final class AppStack {
    static let eur = Currency("EUR")!
    static let locale = Locale(identifier: "en_US")
    static let password = "correct horse battery"
    /// Where payers "reach" the payee nearby; the simulated link ignores the address.
    static let hints = [TransportHint.tcp("127.0.0.1:1")]

    let name: String
    let issuer: LoopbackIssuer
    let email: String
    let store: MemoryFlowStore
    let settings: InMemorySettingsStore
    let connectivity: ManualConnectivity
    let notifier: RecordingNotifier
    let gate: ScriptedBiometricGate
    /// The phone's network to the issuer: `isCut` is airplane mode.
    let network: CuttableTransport
    let app: AppModel
    let wallet: AsyncWallet
    let session: WalletSession
    let home: HomeModel

    /// Onboarding as a person does it — server, register, wallet (with `passphrase` typed twice,
    /// or none) — then the app starts with the result and the home screen appears. The phone
    /// starts offline as far as the app knows (no launch sync): tests switch `connectivity`.
    /// - Parameter biometrics: the scripted answers of Face ID, in order.
    init(_ name: String, on issuer: LoopbackIssuer, passphrase: String? = nil, biometrics: [Bool] = []) async throws {
        self.name = name
        self.issuer = issuer
        let store = MemoryFlowStore()
        let network = CuttableTransport()
        self.store = store
        self.network = network
        let directory = issuer.dir + "/" + name + "-app-" + UUID().uuidString.prefix(6)
        let onboarding = OnboardingModel(
            walletDirectory: directory, credentials: store, flowState: store, keyCost: .testing,
            makeClient: { IssuerClient(serverURL: $0, transport: network) })
        onboarding.appear()
        #expect(onboarding.focus.focused == .server)
        onboarding.server = issuer.baseURL.absoluteString
        try await Self.step(onboarding, expecting: .account)
        #expect(onboarding.focus.focused == .email)
        email = "\(name)-\(UUID().uuidString.prefix(6))@app.test"
        onboarding.mode = .register
        onboarding.email = email
        onboarding.focusNext()
        #expect(onboarding.focus.focused == .password)
        onboarding.password = Self.password
        try await Self.step(onboarding, expecting: .wallet)
        #expect(onboarding.focus.focused == .passphrase)
        if let passphrase {
            onboarding.passphrase = passphrase
            onboarding.focusNext()
            onboarding.passphraseConfirmation = passphrase
        }
        try await Self.step(onboarding, expecting: .done)
        let (wallet, session) = try #require(onboarding.result)
        #expect(onboarding.password.isEmpty && onboarding.passphrase.isEmpty, "secrets are not kept on the screen")
        self.wallet = wallet
        self.session = session
        if let passphrase {
            // The passphrase protects the key at rest: the wallet does not open without it.
            await #expect(throws: WalletError.passphraseRequired) { _ = try await AsyncWallet.open(directory: directory) }
            #expect(try await AsyncWallet.open(directory: directory, passphrase: passphrase).publicKey == wallet.publicKey)
        }

        settings = InMemorySettingsStore()
        connectivity = ManualConnectivity(.offline)
        notifier = RecordingNotifier()
        gate = ScriptedBiometricGate(biometrics)
        // The lock's fallback checks the wallet's own passphrase (none: Face ID only).
        var verify: (@Sendable (String) async -> Bool)?
        if passphrase != nil {
            verify = { typed in
                let opened = try? await AsyncWallet.open(directory: directory, passphrase: typed)
                return opened != nil
            }
        }
        app = AppModel(
            settings: settings, connectivity: connectivity, scheduler: RecordingScheduler(), notifier: notifier,
            lock: LockModel(gate: gate, settings: settings, verifyPassphrase: verify),
            biometrics: gate, sessionOptions: WalletPair.sessionOptions)
        app.start(wallet: wallet, session: session)
        home = try #require(app.home, "the app hands out the home screen's model")
        home.appear()
        #expect(await untilTrue { self.home.snapshot != nil && self.home.settled != nil && self.home.connectivity == .offline })
    }

    /// Presses the step's button (as the view does: `submit()`) and waits for the next step.
    private static func step(_ onboarding: OnboardingModel, expecting next: OnboardingModel.Step) async throws {
        #expect(onboarding.canSubmit, "\(onboarding.validationMessages)")
        onboarding.submit()
        #expect(await untilTrue { onboarding.step == next || onboarding.error != nil })
        #expect(onboarding.error == nil, "\(onboarding.error?.description ?? "")")
        #expect(onboarding.activity == nil)
        try #require(onboarding.step == next)
    }
}

// MARK: Screens, opened as the app opens them

extension AppStack {
    /// Money on the account (a bank transfer; development funding on the test issuer).
    func fund(_ minor: UInt64) async throws { try await session.client.fund(minor) }

    /// The Buy sheet as the app hands it out (its limits from home's snapshot), `text` typed,
    /// Buy pressed; returns once it bought or failed.
    func buy(_ text: String) async throws -> BuyModel {
        let screen = try #require(app.makeBuy(locale: Self.locale))
        screen.appear()
        #expect(screen.focus.focused == .amount)
        screen.amount.text = text
        screen.submit()
        #expect(await untilTrue { screen.phase != .editing && screen.phase != .buying })
        return screen
    }

    /// The Receive sheet as the app hands it out: `amount` (empty: open), a description, Return
    /// on the last field generates. `frameBytes` is small enough that the request is several QR
    /// frames (so the scan goes "k of n"); `expiresIn` 0 makes a request expired at once.
    func receive(_ amount: String, frameBytes: Int = 40, expiresIn: UInt64 = 600) async throws -> ReceiveModel {
        let screen = try #require(
            app.makeReceive(
                hints: Self.hints, payeeName: name, expiresIn: expiresIn, frameBytes: frameBytes, locale: Self.locale))
        screen.appear()
        screen.amount.text = amount
        screen.focusNext()
        screen.note = "end to end"
        screen.focusNext()
        await screen.pendingGeneration?.value
        try #require(screen.phase == .showingRequest, "\(screen.phase)")
        return screen
    }

    /// The Send sheet as the app hands it out (its balances are home's). With `clock`, a sheet
    /// whose clock differs from the app's (a phone whose time is behind), built by hand.
    func sendScreen(dialer: (any LinkDialer)? = nil, clock: (any AppClock)? = nil) throws -> SendModel {
        let screen: SendModel
        if let clock {
            screen = SendModel(
                currency: Self.eur, offlineSpendable: home.offlineSpendable, settled: UInt64(max(0, home.settled ?? 0)),
                clock: clock, locale: Self.locale)
            screen.services = SendServices(
                wallet: wallet.wallet, session: session, dialer: dialer, sessionOptions: WalletPair.sessionOptions)
        } else {
            screen = try #require(app.makeSend(dialer: dialer, locale: Self.locale))
        }
        screen.appear()
        return screen
    }

    /// The Scan sheet reading `frames` out of order (see `scanOutOfOrder`).
    func scan(_ frames: [String]) throws -> ScanResult { try scanOutOfOrder(frames, on: app.makeScan()) }

    /// Scan → Send: `frames` read by the camera out of order, the request routed to a Send
    /// sheet prefilled with it.
    func scanRequest(_ frames: [String], dialer: (any LinkDialer)? = nil, clock: (any AppClock)? = nil) throws -> SendModel {
        guard case .send(let request) = try scan(frames) else {
            throw ScanError.notAPaymentMessage(type: nil)
        }
        let screen = try sendScreen(dialer: dialer, clock: clock)
        screen.useRequest(request)
        return screen
    }

    /// The issuer's own books for this account: what it settled, and how many purchases it
    /// recorded (one journal entry per purchase).
    func settledAtIssuer() async throws -> Int64 { try await issuer.issuer.account(session.accountId).balance }
    func purchasesAtIssuer() async throws -> Int {
        try await issuer.issuer.history(account: session.accountId, limit: 200, before: nil, kind: "purchase").count
    }
}

/// The camera reading `frames` out of order — the odd positions backwards, then the even ones,
/// the first frame read twice — checking the "k of n" progress at every new frame. Returns the
/// routed result.
@MainActor
func scanOutOfOrder(_ frames: [String], on scanner: ScanAssembler) throws -> ScanResult {
    let n = frames.count
    let order = stride(from: n - 1, through: 0, by: -1).filter { $0 % 2 == 1 } + stride(from: 0, to: n, by: 2)
    #expect(order.count == n && (n < 3 || order != Array(0..<n)))
    for (k, index) in order.enumerated() {
        let event = scanner.scan(frames[index])
        if k + 1 < n {
            #expect(event == .progress(ScanProgress(received: k + 1, expected: n)))
            #expect(scanner.progress?.description == "\(k + 1) of \(n)")
            if k == 0 { #expect(scanner.scan(frames[index]) == .duplicate, "the camera sees a frame many times") }
        } else {
            guard case .complete = event else {
                Issue.record("the last frame did not complete the message: \(event)")
                throw ScanError.incomplete(received: k, expected: n)
            }
        }
    }
    return try #require(scanner.result)
}

/// What a tampered phone does: signs the note behind the first chain of `paid` once more,
/// whole, to `payee` for the request `nonce` — the same state spent twice.
func signedAgain(_ paid: [UInt8], by payer: Wallet, to payee: PublicKeyBytes, nonce: Nonce) throws -> PaymentBundle {
    let spent = try #require(try PaymentBundle(decoding: paid).chains.first)
    let note = Chain(note: spent.note)
    return try payer.signAgain(note, to: payee, amount: note.note.amount, nonce: nonce, now: UInt64(Date().timeIntervalSince1970))
}

// MARK: Common steps

extension AppStack {
    /// Money on the account and `major` whole euros of it bought as notes (the Buy sheet), seen
    /// on home.
    func stock(_ major: UInt64, funds: UInt64? = nil) async throws {
        try await fund(funds ?? major * 100)
        let screen = try await buy(String(major))
        guard case .bought = screen.phase else {
            Issue.record("\(name) could not buy: \(screen.phase)")
            throw ScanError.nothingEntered
        }
        #expect(await untilTrue { self.home.offlineSpendable == major * 100 })
    }

    /// Scans `request`'s code and pays it by QR: the Send sheet showing the payment's frames,
    /// and the payment as `payee`'s camera reads them.
    func payByQR(_ request: ReceiveModel, to payee: AppStack) async throws -> (send: SendModel, payment: PaymentBundle) {
        let send = try scanRequest(request.requestFrames)
        send.method = .qr
        send.submit()
        #expect(send.confirmation?.method == .qr)
        await send.send()
        #expect(send.phase == .waitingForReceipt, "\(send.phase)")
        guard case .receive(let payment) = try payee.scan(send.paymentFrames) else {
            throw ScanError.notAPaymentMessage(type: nil)
        }
        return (send, payment)
    }
}

/// Every value an observed property took, as a view bound to it would see them: re-registered
/// after each change (Observation reports one change at a time). Changes made in one main-actor
/// turn coalesce into the last, as on a screen, so tests check the order, not every step.
@MainActor
final class Observed<Value> {
    private(set) var values: [Value]
    private let read: @MainActor () -> Value

    init(_ read: @escaping @MainActor () -> Value) {
        self.read = read
        values = [read()]
        track()
    }

    private func track() {
        withObservationTracking {
            _ = read()
        } onChange: { [weak self] in
            Task { @MainActor in self?.changed() }
        }
    }

    private func changed() {
        values.append(read())
        track()
    }
}

extension SendPhase {
    /// Where the phase stands in a payment's order (a screen's phases never go back while it
    /// pays): editing, confirming, signing, out to the payee or the issuer, waiting, done.
    var step: Int {
        switch self {
        case .editing: 0
        case .confirming: 1
        case .signing: 2
        case .sending, .contactingServer: 3
        case .waitingForReceipt: 4
        case .paid, .failed: 5
        }
    }
}
