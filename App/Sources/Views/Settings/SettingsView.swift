import SwiftUI
import WalletAppModels

/// The Settings tab: auto-recharge (toggle, threshold 10–500 step 10, target 50–1000 step 25,
/// the preview), the wallet info (the shared home model's numbers), appearance, refresh and
/// buy, the biometric lock, backup and restore, the server, the background-sync warning and
/// logout. Binds `SettingsModel`; `app` gives what lives above one session (`makeBuy()`, the
/// server change and logout that end the session, the background-sync warning).
///
/// Keyboard: the numeric fields and the server are the model's focus chain (threshold →
/// target → server); Return walks it and the toolbar offers Previous / Next / Done; a tap
/// outside a field dismisses the keyboard.
struct SettingsView: View {
    @Bindable var model: SettingsModel
    let app: AppModel

    @FocusState private var focused: SettingsModel.Field?
    @State private var buy: Presented<BuyModel>?
    @State private var deposit: Presented<DepositModel>?
    @State private var withdraw: Presented<WithdrawModel>?
    @State private var backingUp = false
    @State private var restoring = false
    @State private var confirmingLogout = false

    init(model: SettingsModel, app: AppModel) {
        self.model = model
        self.app = app
    }

    var body: some View {
        Form {
            AutoRechargeSection(model: model, focused: $focused)
            walletInfo
            appearance
            actions
            escrowSettlement
            security
            backupAndRestore
            ServerSection(model: model, app: app, focused: $focused)
            notices
            Section {
                Button("Log out", role: .destructive) { confirmingLogout = true }
                    .accessibilityHint("Forgets the login on this phone; the wallet and its notes stay")
            }
        }
        .navigationTitle("Settings")
        .syncsFocus($focused, with: $model.focus.focused)
        .formKeyboardToolbar(model)
        .dismissesKeyboardOnTap { model.focus.clearFocus() }
        .onAppear { model.home.appear() }
        .confirmationDialog("Log out of the issuer?", isPresented: $confirmingLogout, titleVisibility: .visible) {
            Button("Log out", role: .destructive) { Task { await app.logOut() } }
        } message: {
            Text("The wallet and its notes stay on this phone and still pay and receive offline. Log in again to sync.")
        }
        // Every sheet carries the lock cover: a sheet sits above the root's cover.
        .sheet(item: $buy) { presented in
            BuyView(model: presented.model)
                .coveredWhileLocked(app.lock)
        }
        .sheet(item: $deposit) { presented in
            DepositView(model: presented.model)
                .coveredWhileLocked(app.lock)
        }
        .sheet(item: $withdraw) { presented in
            WithdrawView(model: presented.model)
                .coveredWhileLocked(app.lock)
        }
        .sheet(isPresented: $backingUp) {
            NavigationStack { BackupView(model: model.backup) }
                .coveredWhileLocked(app.lock)
        }
        .sheet(isPresented: $restoring) {
            if let restore = model.restore {
                NavigationStack { RestoreView(model: restore) }
                    .coveredWhileLocked(app.lock)
            }
        }
    }

    /// The background-sync warning and the last general error, when there are any. (Its own
    /// property: a `Form` takes at most ten children in every SDK's `ViewBuilder`.)
    @ViewBuilder private var notices: some View {
        if let warning = app.backgroundSyncWarning {
            Section {
                Label(warning, systemImage: "exclamationmark.triangle")
                    .foregroundStyle(.orange)
            } header: {
                Text("Background sync")
            }
        }
        if let problem = model.errorText(for: .general) {
            Section {
                Label(problem, systemImage: "exclamationmark.circle")
                    .foregroundStyle(.red)
            }
        }
    }

    private var walletInfo: some View {
        Section("Wallet") {
            LabeledContent("Offline notes") { AmountText(text: model.home.offlineText, caption: "Offline notes", style: .body) }
            LabeledContent("Settled") { AmountText(text: model.home.settledText, caption: "Settled", style: .body) }
            LabeledContent("Total") {
                AmountText(
                    text: model.home.totalText, spoken: model.home.totalSpoken, caption: "Total", style: .body.weight(.semibold))
            }
            LabeledContent("Last sync", value: model.freshness.description)
        }
    }

    private var appearance: some View {
        Section("Appearance") {
            Picker("Appearance", selection: Binding(get: { model.appearance }, set: { model.setAppearance($0) })) {
                ForEach(AppearanceSetting.allCases, id: \.self) { choice in
                    Text(choice.title).tag(choice)
                }
            }
            .pickerStyle(.segmented)
            .accessibilityLabel("Appearance")
        }
    }

    private var actions: some View {
        Section {
            Button {
                Task { await model.home.refresh() }
            } label: {
                BusyLabel("Refresh balances", systemImage: "arrow.clockwise", isBusy: model.home.isSyncing)
            }
            .disabled(model.home.isSyncing)
            .accessibilityHint("Syncs with the issuer: settles payments and reads the balances")
            if let line = model.home.refreshText {
                Text(line)
                    .font(.footnote)
                    .foregroundStyle(.secondary)
            }
            Button {
                buy = app.makeBuy().map(Presented.init)
            } label: {
                Label("Buy notes", systemImage: "cart")
            }
            .accessibilityHint("Turns part of the settled balance into offline notes")
        } header: {
            Text("Actions")
        }
    }

    /// Money in and out through the issuer's escrow on an Ethereum-compatible network. The models
    /// carry no "escrow available" flag (it is known only once the issuer is asked), so the rows
    /// are always here and an issuer without escrow settlement says so in the sheet.
    private var escrowSettlement: some View {
        Section {
            Button {
                deposit = app.makeDeposit().map(Presented.init)
            } label: {
                Label("Deposit from a crypto wallet", systemImage: "arrow.down.circle")
            }
            .accessibilityHint("Shows how to send tokens from your Ethereum wallet to this account")
            Button {
                withdraw = app.makeWithdraw().map(Presented.init)
            } label: {
                Label("Withdraw to a crypto wallet", systemImage: "arrow.up.circle")
            }
            .accessibilityHint("Pays the settled balance out to an Ethereum address")
        } header: {
            Text("On the blockchain")
        } footer: {
            Text("For issuers that settle on an Ethereum-compatible network.")
        }
    }

    private var security: some View {
        Section {
            Toggle(isOn: Binding(get: { model.biometricLock }, set: { on in Task { await model.setBiometricLock(on) } })) {
                Label("Lock with Face ID", systemImage: "faceid")
            }
            .accessibilityHint("Asks for Face ID or Touch ID, or the passcode, when the app opens")
            if let problem = model.errorText(for: .security) {
                Text(problem)
                    .font(.footnote)
                    .foregroundStyle(.red)
            }
        } header: {
            Text("Security")
        }
    }

    private var backupAndRestore: some View {
        Section {
            Button {
                backingUp = true
            } label: {
                Label("Back up the wallet…", systemImage: "externaldrive.badge.timemachine")
            }
            .accessibilityHint("Writes the whole wallet, encrypted with a passphrase you choose, to Files")
            if model.restore != nil {
                Button {
                    restoring = true
                } label: {
                    Label("Restore from a backup…", systemImage: "arrow.counterclockwise.circle")
                }
                .accessibilityHint("Replaces this new, empty wallet with a backup's notes")
            }
        } header: {
            Text("Backup")
        } footer: {
            Text("A backup is the whole wallet, encrypted with a passphrase you choose. Restore only into a new, empty wallet.")
        }
    }
}

/// Auto-recharge: the toggle, the two whole-unit values (typed on the number pad or stepped),
/// the preview line. Every change is saved at once (`saveAutoRecharge`), where background sync
/// reads it; a refused value shows its reason under the section.
private struct AutoRechargeSection: View {
    @Bindable var model: SettingsModel
    let focused: FocusState<SettingsModel.Field?>.Binding

    var body: some View {
        Section {
            Toggle("Auto-recharge", isOn: $model.autoRechargeOn)
                .accessibilityHint("When the offline balance is low, the next sync buys notes")
            if model.autoRechargeOn {
                WholeUnitsRow(
                    title: "When below", value: $model.threshold, unit: model.currency?.code ?? "",
                    spoken: model.wholeUnitsText(model.threshold), form: model, field: .threshold, focused: focused,
                    increment: { model.stepThreshold(up: true) }, decrement: { model.stepThreshold(up: false) })
                WholeUnitsRow(
                    title: "Top up to", value: $model.target, unit: model.currency?.code ?? "",
                    spoken: model.wholeUnitsText(model.target), form: model, field: .target, focused: focused,
                    increment: { model.stepTarget(up: true) }, decrement: { model.stepTarget(up: false) })
            }
            Text(model.previewText)
                .font(.footnote)
                .foregroundStyle(.secondary)
            if let problem = model.errorText(for: .autoRecharge) {
                Text(problem)
                    .font(.footnote)
                    .foregroundStyle(.red)
            }
        } header: {
            Text("Auto-recharge")
        } footer: {
            Text(ViewText.autoRechargeRule(threshold: SettingsModel.thresholdRange, target: SettingsModel.targetRange))
        }
        .onChange(of: model.autoRechargeOn) { model.saveAutoRecharge() }
        .onChange(of: model.threshold) { model.saveAutoRecharge() }
        .onChange(of: model.target) { model.saveAutoRecharge() }
    }
}

/// One whole-unit value: a number-pad field in the form's focus chain and a stepper beside it;
/// the title above them at the accessibility text sizes.
private struct WholeUnitsRow: View {
    let title: LocalizedStringKey
    @Binding var value: UInt64
    let unit: String
    let spoken: String
    let form: SettingsModel
    let field: SettingsModel.Field
    let focused: FocusState<SettingsModel.Field?>.Binding
    let increment: () -> Void
    let decrement: () -> Void

    var body: some View {
        AdaptiveStack {
            Text(title)
            Spacer()
            HStack {
                TextField(title, value: $value, format: IntegerFormatStyle<UInt64>())
                    .keyboardType(.numberPad)
                    .multilineTextAlignment(.trailing)
                    .monospacedDigit()
                    .frame(minWidth: 60)
                    .fixedSize()
                    .focused(focused, equals: field)
                    .returnAdvances(form)
                    .keepsKeyboardOnTap()
                    .accessibilityLabel(Text(title))
                    .accessibilityValue(spoken)
                Text(unit)
                    .foregroundStyle(.secondary)
                    .accessibilityHidden(true)
                Stepper(title, onIncrement: increment, onDecrement: decrement)
                    .labelsHidden()
                    .accessibilityLabel(Text(title))
                    .accessibilityValue(spoken)
            }
        }
    }
}

/// The issuer's address: a URL field (last in the focus chain) and Save, which ends the login
/// when it names another issuer.
private struct ServerSection: View {
    @Bindable var model: SettingsModel
    let app: AppModel
    let focused: FocusState<SettingsModel.Field?>.Binding

    var body: some View {
        Section {
            FormTextField(
                "Server address", prompt: "https://wallet.example.com", text: $model.serverText, form: model, field: .server,
                focused: focused
            )
            .keyboardType(.URL)
            .textInputAutocapitalization(.never)
            .autocorrectionDisabled()
            if let problem = model.errorText(for: .server) ?? model.serverProblem?.description {
                Text(problem)
                    .font(.footnote)
                    .foregroundStyle(.red)
            }
            Button("Save server") { Task { await app.saveServer(from: model) } }
                .disabled(model.serverProblem != nil)
                .accessibilityHint("Another server ends this login; the wallet's notes stay")
        } header: {
            Text("Server")
        } footer: {
            Text("Another server ends this login: log in there again. The wallet's notes stay.")
        }
    }
}
