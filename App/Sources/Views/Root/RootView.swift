import SwiftUI
import WalletAppModels

/// The app's shell over the one `AppModel`: onboarding while no wallet is open; then the four
/// tabs Wallet / Transactions / QR Code / Settings and the sheets they open (Send, Receive, Buy,
/// Scan), each model made by the app model's `make…` when its sheet opens. The fraud and
/// expiry alerts come from `app.alerts`, the lock screen covers everything while `app.lock` is
/// locked, the colour scheme follows the appearance setting, and the scene phase drives
/// `app.launched()` / `app.enteredBackground()`.
///
/// The composition root shows it once `AppModel.open` has finished (or found no wallet), and
/// passes how to make onboarding's model and, where the device has one, the nearby listener
/// Receive serves its requests on.
struct RootView: View {
    let app: AppModel
    /// Onboarding's model (wallet directory, credential and flow-state stores): the root's.
    let makeOnboarding: @MainActor () -> OnboardingModel
    /// Serves a Receive request nearby in the root's own way; nil (the default): the request is
    /// served on the endpoint `AppModel`'s `NearbyAdvertiser` made for it
    /// (`ReceiveModel.listenNearby()`). Pass one only when AppModel has no advertiser.
    var listen: (@MainActor (ReceiveModel) async -> Void)?
    /// "Log in" for the phone's wallet while `app.needsLogIn` (after a logout or a server
    /// change): the root's `app.makeLogIn(credentials:flowState:)`. Nil: no button.
    var makeLogIn: (@MainActor () -> OnboardingModel?)?

    @State private var tab: RootTab = .home
    @State private var sheet: RootSheet?
    @State private var onboarding: OnboardingModel?
    @State private var qrTab: QRCodeTabModel?
    @State private var hasLaunched = false
    @State private var notice: String?
    @Environment(\.scenePhase) private var scenePhase

    var body: some View {
        content
            // While locked, nothing of the wallet shows (also in the app switcher's snapshot).
            .coveredWhileLocked(app.lock)
            .walletAlerts(app)
            .preferredColorScheme(Self.colorScheme(app.appearance))
            .onChange(of: scenePhase, initial: true) { _, phase in
                switch phase {
                case .active:
                    if !hasLaunched {
                        hasLaunched = true
                        app.launched()
                    }
                case .background:
                    app.enteredBackground()
                default:
                    break
                }
            }
            .messageAlert("Cannot open this", message: $notice)
    }

    @ViewBuilder
    private var content: some View {
        if !app.isWalletOpen {
            if let onboarding {
                OnboardingView(model: onboarding, app: app)
            } else {
                ProgressView()
                    .onAppear { onboarding = makeOnboarding() }
            }
        } else {
            tabs
        }
    }

    private var tabs: some View {
        TabView(selection: $tab) {
            walletTab
                .tabItem { Label("Wallet", systemImage: "wallet.pass") }
                .tag(RootTab.home)
            TransactionsTabView(app: app)
                .id(app.home.map(ObjectIdentifier.init))
                .tabItem { Label("Transactions", systemImage: "list.bullet.rectangle") }
                .tag(RootTab.transactions)
            qrCodeTab
                .tabItem { Label("QR Code", systemImage: "qrcode") }
                .tag(RootTab.qrCode)
            settingsTab
                .tabItem { Label("Settings", systemImage: "gearshape") }
                .tag(RootTab.settings)
        }
        .sheet(item: $sheet) { sheet in
            Group {
                switch sheet {
                case .send(let model): SendView(model: model, app: app)
                case .receive(let model): ReceiveView(model: model, app: app, listen: listen)
                case .buy(let model): BuyView(model: model)
                case .scan(let model):
                    ScanView(model: model) { result in
                        self.sheet = nil
                        route(result)
                    }
                case .logIn(let model): OnboardingView(model: model, app: app)
                }
            }
            // A sheet is presented above the root's lock cover: it carries its own.
            .coveredWhileLocked(app.lock)
        }
        .onChange(of: app.needsLogIn) { _, needsLogIn in
            // Logged in again ("Open my wallet" started the new session): the sheet has done its job.
            if !needsLogIn, case .logIn = sheet { sheet = nil }
        }
    }

    @ViewBuilder
    private var walletTab: some View {
        if let home = app.home {
            // A new session (login, restore) brings a new model: a new view, so it appears again.
            HomeView(
                model: home, onAction: quickAction, onViewAll: { tab = .transactions }, onSettings: { tab = .settings }
            )
            .id(ObjectIdentifier(home))
        } else if app.needsLogIn {
            NotLoggedInView(
                text: ViewText.loggedOut,
                onAction: quickAction, onLogIn: makeLogIn == nil ? nil : openLogIn)
        } else {
            NotLoggedInView(
                text: ViewText.openOffline,
                onAction: quickAction)
        }
    }

    @ViewBuilder
    private var qrCodeTab: some View {
        if let qrTab {
            QRCodeTabView(
                model: qrTab, onScan: { open(.scan(app.makeScan())) }, onGenerate: { openReceive() },
                onSendPayment: {
                    if let request = qrTab.lastRequest, let send = app.makeSend(paying: request) { open(.send(send)) }
                })
        } else {
            ProgressView().onAppear { qrTab = app.makeQRCodeTab() }
        }
    }

    @ViewBuilder
    private var settingsTab: some View {
        if let settings = app.settingsModel {
            // SettingsView's title and toolbar (the keyboard's Previous / Next / Done) need a
            // navigation container; the other tabs bring their own NavigationStack.
            NavigationStack { SettingsView(model: settings, app: app) }
                .id(ObjectIdentifier(settings))
        } else {
            NotLoggedInView(
                text: app.needsLogIn
                    ? "Settings need a login to the issuer. Log in to change them."
                    : "Settings need a login to the issuer. Connect to the internet; the wallet logs in again by itself.",
                onAction: nil, onLogIn: app.needsLogIn && makeLogIn != nil ? openLogIn : nil)
        }
    }

    // MARK: Routing

    private func quickAction(_ action: HomeModel.QuickAction) {
        switch action {
        case .send: if let send = app.makeSend() { open(.send(send)) }
        case .receive: openReceive()
        case .buy:
            if let buy = app.makeBuy() {
                open(.buy(buy))
            } else {
                notice = "Buying needs a login to the issuer. Connect to the internet and try again."
            }
        case .scan: open(.scan(app.makeScan()))
        }
    }

    private func openReceive() {
        if let receive = app.makeReceive() { open(.receive(receive)) }
    }

    private func openLogIn() {
        if let logIn = makeLogIn?() { open(.logIn(logIn)) }
    }

    /// Where a scan made from home or the QR Code tab goes: a request opens Send prefilled (and
    /// is the QR Code tab's last request), a payment opens Receive to accept it, a receipt
    /// belongs to the Send sheet that waits for it.
    private func route(_ result: ScanResult) {
        switch result {
        case .send(let request):
            qrTab?.scanned(request)
            if let send = app.makeSend(paying: request) { open(.send(send)) }
        case .receive(let bundle):
            if let receive = app.makeReceive() {
                open(.receive(receive))
                Task { await receive.receiveScanned(bundle) }
            }
        case .confirm:
            notice = "This is a payee's receipt. Scan it from the Send screen of the payment it is for."
        }
    }

    /// Opens `next`; one already up is replaced (SwiftUI dismisses it and presents the new one,
    /// as a scan opening Send does).
    private func open(_ next: RootSheet) {
        sheet = next
    }

    static func colorScheme(_ setting: AppearanceSetting) -> ColorScheme? {
        switch setting {
        case .system: nil
        case .light: .light
        case .dark: .dark
        }
    }
}

/// The root's tabs.
enum RootTab: Hashable {
    case home, transactions, qrCode, settings
}

/// The sheets the root opens, each with the model made for it.
enum RootSheet: Identifiable {
    case send(SendModel)
    case receive(ReceiveModel)
    case buy(BuyModel)
    case scan(ScanAssembler)
    /// Logging in again with the phone's wallet.
    case logIn(OnboardingModel)

    var id: ObjectIdentifier {
        switch self {
        case .send(let model): ObjectIdentifier(model)
        case .receive(let model): ObjectIdentifier(model)
        case .buy(let model): ObjectIdentifier(model)
        case .scan(let model): ObjectIdentifier(model)
        case .logIn(let model): ObjectIdentifier(model)
        }
    }
}

/// A tab that needs the login the wallet does not have (opened offline, or logged out), with
/// what still works offline and, when logged out, "Log in".
struct NotLoggedInView: View {
    let text: String
    let onAction: (@MainActor (HomeModel.QuickAction) -> Void)?
    var onLogIn: (@MainActor () -> Void)?

    var body: some View {
        VStack(spacing: 16) {
            Image(systemName: "wifi.slash")
                .font(.largeTitle)
                .foregroundStyle(.secondary)
                .accessibilityHidden(true)
            Text(text)
                .font(.callout)
                .multilineTextAlignment(.center)
            if let onAction {
                AdaptiveStack(stackedAlignment: .center) {
                    Button("Send") { onAction(.send) }
                    Button("Receive") { onAction(.receive) }
                    Button("Scan") { onAction(.scan) }
                        .accessibilityHint("Opens the camera to read a payment request, a payment or a receipt")
                }
                .buttonStyle(.bordered)
            }
            if let onLogIn {
                Button("Log in", action: onLogIn)
                    .buttonStyle(.borderedProminent)
                    .controlSize(.large)
                    .accessibilityHint("Log in to the issuer with this phone's wallet")
            }
        }
        .padding()
    }
}

extension View {
    /// The lock screen over this view while `lock` is locked: the wallet's content never shows
    /// (nor in the app switcher's snapshot). The root and every sheet apply it, because a sheet
    /// is presented above its presenter's overlay.
    func coveredWhileLocked(_ lock: LockModel) -> some View {
        overlay {
            if lock.isLocked {
                LockView(model: lock)
                    .background(.background)
            }
        }
    }
}
