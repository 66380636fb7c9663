import SwiftUI
import WalletAppModels

/// Transactions → History: the filter chips with their counts, the rows under the selected
/// chip, pull-to-refresh (the app's one sync), the empty state, and the detail sheet of a
/// tapped row. Binds `HistoryModel` only; `appear()` / `disappear()` follow the screen.
///
/// Swipe actions: the model offers no Retry or Cancel for a line — a line fails only when the
/// issuer settled it as failed (the notes expired unredeemed and their value was refunded), so
/// there is nothing left to retry or cancel; rows have no swipe actions.
struct HistoryView: View {
    @Bindable var model: HistoryModel

    init(model: HistoryModel) {
        self.model = model
    }

    var body: some View {
        List {
            Section {
                HistoryFilterChips(model: model)
                    .listRowInsets(EdgeInsets(top: 8, leading: 0, bottom: 8, trailing: 0))
                    .listRowBackground(Color.clear)
            }
            if let problem = model.problem {
                Section {
                    Label(problem, systemImage: "exclamationmark.triangle")
                        .foregroundStyle(.orange)
                }
            }
            if let refreshProblem = model.refreshProblem {
                Section {
                    Label(refreshProblem, systemImage: "arrow.clockwise.circle")
                        .foregroundStyle(.secondary)
                }
            }
            Section {
                if let empty = model.emptyText {
                    ContentUnavailableView {
                        Label("No transactions", systemImage: "list.bullet.rectangle")
                    } description: {
                        Text(empty)
                    }
                } else {
                    ForEach(model.rows) { row in
                        Button {
                            Task { await model.open(row.id) }
                        } label: {
                            HistoryRowView(row: row)
                        }
                        .buttonStyle(.plain)
                        .accessibilityHint("Shows the proof behind this transaction")
                    }
                }
            }
        }
        .listStyle(.insetGrouped)
        .refreshable { await model.refresh() }
        .navigationTitle("History")
        .onAppear { model.appear() }
        .onDisappear { model.disappear() }
        .sheet(isPresented: Binding(get: { model.detail != nil }, set: { if !$0 { model.closeDetail() } })) {
            if let detail = model.detail {
                NavigationStack {
                    HistoryDetailView(detail: detail)
                        .toolbar {
                            ToolbarItem(placement: .confirmationAction) {
                                Button("Done") { model.closeDetail() }
                            }
                        }
                }
            }
        }
    }
}

/// The chips: All / Offline / Online / Pending / Failed, each with its count; the selected one
/// filled. Scrolls sideways when the text is large (Dynamic Type).
struct HistoryFilterChips: View {
    @Bindable var model: HistoryModel

    var body: some View {
        ScrollView(.horizontal, showsIndicators: false) {
            HStack(spacing: 8) {
                ForEach(HistoryModel.Filter.allCases, id: \.self) { filter in
                    let count = model.counts[filter] ?? 0
                    let selected = model.filter == filter
                    Button {
                        model.filter = filter
                    } label: {
                        HStack(spacing: 4) {
                            Text(filter.title)
                            Text(verbatim: count.formatted())
                                .monospacedDigit()
                                .foregroundStyle(selected ? Color.white.opacity(0.85) : Color.secondary)
                        }
                        .font(.subheadline.weight(.medium))
                        .padding(.horizontal, 12)
                        .padding(.vertical, 6)
                        .background(selected ? Color.accentColor : Color.secondary.opacity(0.15), in: Capsule())
                        .foregroundStyle(selected ? Color.white : Color.primary)
                    }
                    .buttonStyle(.plain)
                    .accessibilityLabel(ViewText.filterChip(filter.title, count: count))
                    .accessibilityAddTraits(selected ? .isSelected : [])
                }
            }
            .padding(.horizontal)
        }
    }
}
