#if canImport(UIKit)
import SwiftUI
import WalletAppModels

/// The app: one `AppRoot` (adapters, `AppModel`, the current wallet) for the process, the
/// background sync registered before launch finishes, and one window that shows the launch
/// screens until the wallet is open (or there is none), then `RootView`.
///
/// RootView follows the scene phase itself (`app.launched()` on the first activation,
/// `app.enteredBackground()` on every trip to the background), so the lock closes before the
/// app switcher takes its snapshot.
@main
struct OfflineWalletApp: App {
    @State private var root: AppRoot

    init() {
        // Before any model computes a text: every screen's words in the person's language.
        Localization.install(BundleLocalizer())
        let root = AppRoot()
        _root = State(initialValue: root)
        // iOS requires the handler before the app finishes launching, on every launch —
        // including the launches it makes in the background just to run this task.
        root.scheduler.register { await root.backgroundSync() }
        Task { await root.openWallet() }
    }

    var body: some Scene {
        WindowGroup {
            LaunchView(root: root)
                .task {
                    // Expiry warnings while the app stays open (offline is when they matter:
                    // the sync that would refresh the notes cannot run). AppModel posts each once.
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(300))
                        await root.app.checkExpiry()
                    }
                }
        }
    }
}

/// Before RootView: opening, the wallet passphrase, or a failure that stops everything.
/// Thin like the other views: it shows `AppRoot.phase` and binds one field and one button.
struct LaunchView: View {
    @Bindable var root: AppRoot
    @FocusState private var passphraseFocused: Bool

    init(root: AppRoot) {
        self.root = root
    }

    var body: some View {
        switch root.phase {
        case .opening:
            ProgressView("Opening your wallet…")
        case .ready:
            RootView(
                app: root.app, makeOnboarding: { root.makeOnboarding() }, listen: root.listen,
                makeLogIn: { root.makeLogIn() })
        case .needsPassphrase(let problem):
            NavigationStack {
                Form {
                    Section {
                        SecureField("Wallet passphrase", text: $root.passphrase)
                            .textContentType(.password)
                            .focused($passphraseFocused)
                            .submitLabel(.go)
                            .onSubmit { Task { await root.submitPassphrase() } }
                    } footer: {
                        Text(problem ?? "Your wallet's key is protected by the passphrase you chose when you created it.")
                    }
                    Button("Unlock") { Task { await root.submitPassphrase() } }
                        .disabled(root.passphrase.isEmpty)
                }
                .navigationTitle("Unlock wallet")
                .onAppear { passphraseFocused = true }
            }
        case .failed(let message):
            ContentUnavailableView("Cannot open the wallet", systemImage: "exclamationmark.triangle", description: Text(message))
        }
    }
}
#endif
