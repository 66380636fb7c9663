import SwiftUI
import WalletAppModels

/// The Wallet tab (home): the total and its parts (offline notes, settled) with their shares and
/// the split bar, the online/offline pill, "Updated x ago", the quick actions, the newest
/// transactions with "View all", pull-to-refresh, and the toolbar's refresh and settings.
/// Binds `HomeModel`; the sheets and tabs it opens are the root's (`onAction`, `onViewAll`,
/// `onSettings`).
struct HomeView: View {
    let model: HomeModel
    let onAction: @MainActor (HomeModel.QuickAction) -> Void
    let onViewAll: @MainActor () -> Void
    let onSettings: @MainActor () -> Void
    /// The quick actions' narrowest width: it grows with the text, so the grid drops to fewer
    /// columns at large sizes instead of cutting the titles.
    @ScaledMetric(relativeTo: .footnote) private var quickActionWidth: CGFloat = 72

    var body: some View {
        NavigationStack {
            ScrollView {
                VStack(alignment: .leading, spacing: 20) {
                    if let problem = model.problem {
                        ProblemBanner(text: problem)
                    }
                    balanceCard
                    partsCards
                    quickActions
                    recentTransactions
                }
                .padding()
            }
            .refreshable { await model.refresh() }
            .navigationTitle("Wallet")
            .toolbar {
                ToolbarItem(placement: .topBarLeading) {
                    Button {
                        Task { await model.refresh() }
                    } label: {
                        Image(systemName: "arrow.clockwise")
                    }
                    .disabled(model.isSyncing)
                    .accessibilityLabel(model.isSyncing ? "Syncing" : "Refresh balances")
                    .accessibilityHint("Syncs with the issuer: settles payments and reads the balances")
                }
                ToolbarItem(placement: .topBarTrailing) {
                    Button(action: onSettings) {
                        Image(systemName: "gearshape")
                    }
                    .accessibilityLabel("Settings")
                }
            }
        }
        .onAppear { model.appear() }
    }

    private var balanceCard: some View {
        VStack(alignment: .leading, spacing: 8) {
            AdaptiveStack {
                Text("Total balance")
                    .font(.headline)
                    .foregroundStyle(.secondary)
                    .accessibilityHidden(true)
                Spacer()
                ConnectivityPill(text: model.connectivityText, isOnline: model.connectivity == .online)
            }
            AmountText(text: model.totalText, spoken: model.totalSpoken, caption: "Total balance", style: .largeTitle.bold())
            TimelineView(.periodic(from: .now, by: 30)) { _ in
                Text(model.freshness.description)
                    .font(.footnote)
                    .foregroundStyle(.secondary)
            }
            if let refresh = model.refreshText {
                HStack(spacing: 6) {
                    if model.isSyncing { ProgressView() }
                    Text(refresh)
                        .font(.footnote)
                        .foregroundStyle(model.isSyncing ? Color.secondary : Color.red)
                }
                .accessibilityElement(children: .combine)
            }
            SplitBar(
                offlineFraction: model.offlineFraction,
                accessibilityText: ViewText.split(offline: model.offlineShareText, settled: model.settledShareText))
        }
        .padding()
        .background(RoundedRectangle(cornerRadius: 16).fill(.background.secondary))
    }

    private var partsCards: some View {
        AdaptiveStack(spacing: 12) {
            BalancePartCard(title: "Offline notes", amount: model.offlineText, share: model.offlineShareText, tint: .accentColor)
            BalancePartCard(title: "Settled", amount: model.settledText, share: model.settledShareText, tint: .green)
        }
    }

    private var quickActions: some View {
        LazyVGrid(columns: [GridItem(.adaptive(minimum: quickActionWidth), spacing: 12)], spacing: 12) {
            ForEach(model.quickActions, id: \.self) { action in
                Button {
                    onAction(action)
                } label: {
                    VStack(spacing: 6) {
                        Image(systemName: Self.symbol(action))
                            .font(.title2)
                            .accessibilityHidden(true)
                        Text(action.title)
                            .font(.footnote)
                    }
                    .frame(maxWidth: .infinity, minHeight: 64)
                }
                .buttonStyle(.bordered)
                .accessibilityLabel(action.title)
                .accessibilityHint(action.hint)
            }
        }
    }

    private var recentTransactions: some View {
        VStack(alignment: .leading, spacing: 8) {
            AdaptiveStack {
                Text("Recent transactions")
                    .font(.headline)
                    .accessibilityAddTraits(.isHeader)
                Spacer()
                Button("View all", action: onViewAll)
                    .accessibilityLabel("View all transactions")
            }
            if model.recentRows.isEmpty {
                Text("No transactions yet. Buy notes or receive a payment to start.")
                    .font(.callout)
                    .foregroundStyle(.secondary)
            } else {
                ForEach(model.recentRows) { row in
                    HistoryRowView(row: row)
                    Divider()
                }
            }
        }
    }

    // The quick actions' symbols: presentation only (their words are the model's).
    static func symbol(_ action: HomeModel.QuickAction) -> String {
        switch action {
        case .send: "arrow.up.circle"
        case .receive: "arrow.down.circle"
        case .buy: "plus.circle"
        case .scan: "qrcode.viewfinder"
        }
    }
}

/// The online/offline pill.
struct ConnectivityPill: View {
    let text: String
    let isOnline: Bool

    var body: some View {
        Label(text, systemImage: isOnline ? "wifi" : "wifi.slash")
            .font(.caption.weight(.semibold))
            .padding(.horizontal, 10)
            .padding(.vertical, 4)
            .foregroundStyle(isOnline ? Color.green : Color.orange)
            .background(Capsule().fill((isOnline ? Color.green : Color.orange).opacity(0.15)))
            .accessibilityLabel(ViewText.network(text))
    }
}

/// The bar under the total: the offline part of the whole, the rest settled.
struct SplitBar: View {
    let offlineFraction: Double
    let accessibilityText: String

    var body: some View {
        ProgressView(value: offlineFraction)
            .tint(.accentColor)
            .accessibilityLabel("Balance split")
            .accessibilityValue(accessibilityText)
    }
}

/// One part of the total (offline notes, settled) with its share.
struct BalancePartCard: View {
    let title: LocalizedStringKey
    let amount: String
    let share: String
    let tint: Color

    var body: some View {
        VStack(alignment: .leading, spacing: 4) {
            Text(title)
                .font(.subheadline)
                .foregroundStyle(.secondary)
            AmountText(text: amount, style: .title3.weight(.semibold))
            Text(ViewText.shareOfTotal(share))
                .font(.caption)
                .foregroundStyle(tint)
        }
        .frame(maxWidth: .infinity, alignment: .leading)
        .padding()
        .background(RoundedRectangle(cornerRadius: 14).fill(tint.opacity(0.1)))
        .accessibilityElement(children: .combine)
    }
}

/// A problem the screen could not hide (the settled balance not read, the wallet unreadable).
struct ProblemBanner: View {
    let text: String

    var body: some View {
        Label(text, systemImage: "exclamationmark.triangle.fill")
            .font(.callout)
            .foregroundStyle(.primary)
            .padding()
            .frame(maxWidth: .infinity, alignment: .leading)
            .background(RoundedRectangle(cornerRadius: 12).fill(Color.orange.opacity(0.2)))
            .accessibilityLabel(ViewText.problem(text))
    }
}
