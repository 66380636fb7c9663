// Self-test (scripts/check-app): more common SwiftUI patterns that MUST type-check against the
// stand-in and the real HistoryModel (type-checked with GoodView.swift): scenes, tabs, lists,
// sheets, dialogs, grids, shapes, styles, accessibility, timelines and geometry.

import Observation
import SwiftUI
import WalletAppModels

struct SelfTestApp: App {
    @State private var tab = 0
    @Environment(\.scenePhase) private var scenePhase

    var body: some Scene {
        WindowGroup {
            TabView(selection: $tab) {
                Text("Wallet").tabItem { Label("Wallet", systemImage: "wallet.pass") }.tag(0)
                Text("Settings").tabItem { Label("Settings", systemImage: "gear") }.tag(1).badge(2)
            }
            .preferredColorScheme(.dark)
        }
        .onChange(of: scenePhase) { _, phase in
            if phase == .background { tab = 0 }
        }
    }
}

struct SelfTestHistoryList: View {
    @Bindable var model: HistoryModel
    @State private var shown: HistoryModel.Row?
    @State private var confirming = false
    @Environment(\.dynamicTypeSize) private var typeSize
    @Environment(\.colorScheme) private var colorScheme
    @Environment(\.openURL) private var openURL
    private let columns = [GridItem(.flexible()), GridItem(.adaptive(minimum: 80), spacing: 8)]

    var body: some View {
        NavigationStack {
            List {
                Picker("Filter", selection: $model.filter) {
                    ForEach(HistoryModel.Filter.allCases, id: \.self) { filter in
                        Text(filter.title).tag(filter)
                    }
                }
                .pickerStyle(.segmented)
                Section {
                    ForEach(model.rows) { row in
                        Button {
                            shown = row
                        } label: {
                            HStack(alignment: .firstTextBaseline) {
                                Image(systemName: row.isIncoming ? "arrow.down" : "arrow.up")
                                    .foregroundStyle(row.isIncoming ? .green : .primary)
                                VStack(alignment: .leading, spacing: 2) {
                                    Text(row.counterparty).font(.headline).lineLimit(1)
                                    Text(row.date, style: .relative).font(.caption).foregroundStyle(.secondary)
                                }
                                Spacer(minLength: 8)
                                Text(row.amountText).monospacedDigit().fontWeight(.semibold)
                            }
                            .contentShape(.rect)
                        }
                        .buttonStyle(.plain)
                        .accessibilityElement(children: .combine)
                        .accessibilityAddTraits(.isButton)
                        .swipeActions(edge: .trailing) {
                            Button("Hide", role: .destructive) { confirming = true }
                        }
                    }
                } header: {
                    Text("\(model.counts[model.filter] ?? 0) lines")
                }
            }
            .listStyle(.insetGrouped)
            .overlay {
                if model.rows.isEmpty {
                    ContentUnavailableView("No payments", systemImage: "tray", description: Text("Pull to refresh."))
                }
            }
            .refreshable { await model.refresh() }
            .task(id: model.filter) { model.appear() }
            .onDisappear { model.disappear() }
            .sheet(item: $shown) { row in
                VStack(spacing: 16) {
                    LazyVGrid(columns: columns) {
                        Text(row.method)
                        Capsule().fill(.tint).frame(height: 8)
                    }
                    ShareLink(item: row.amountText)
                    TimelineView(.periodic(from: .now, by: 0.25)) { context in
                        Text(context.date, style: .time)
                    }
                    GeometryReader { proxy in
                        RoundedRectangle(cornerRadius: 4)
                            .fill(Color.green.opacity(0.3))
                            .frame(width: proxy.size.width / 2)
                    }
                    ProgressView()
                    Stepper("Step", value: .constant(10), in: 10...500, step: 10)
                    Toggle("Lock", isOn: .constant(true)).toggleStyle(.switch)
                    Button("Help") { if let url = URL(string: "https://example.com") { openURL(url) } }
                }
                .padding()
                .presentationDetents([.medium, .large])
                .dynamicTypeSize(...DynamicTypeSize.accessibility2)
            }
            .confirmationDialog("Hide this line?", isPresented: $confirming, titleVisibility: .visible) {
                Button("Hide", role: .destructive) {}
                Button("Cancel", role: .cancel) {}
            }
            .navigationTitle("History")
            .toolbar {
                ToolbarItem(placement: .topBarTrailing) {
                    Button("Refresh", systemImage: "arrow.clockwise") { Task { await model.refresh() } }
                        .disabled(model.isRefreshing)
                }
            }
            .background(colorScheme == .dark ? Color.black : Color.white)
            .clipShape(RoundedRectangle(cornerRadius: typeSize.isAccessibilitySize ? 0 : 12))
        }
    }
}
