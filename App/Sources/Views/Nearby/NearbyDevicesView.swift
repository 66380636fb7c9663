import SwiftUI
import WalletAppModels

/// The Nearby devices sheet: wallets advertising nearby with their name and key id, whether
/// each matches the scanned request's payee, and the one to pay picked into `send` (a
/// Bluetooth payment to that device). Discovery runs while the sheet is up. Binds
/// `NearbyDevicesModel`.
struct NearbyDevicesView: View {
    let model: NearbyDevicesModel
    let send: SendModel
    @Environment(\.dismiss) private var dismiss

    var body: some View {
        NavigationStack {
            List {
                if let state = model.stateText {
                    Section {
                        HStack(spacing: 10) {
                            if model.isSearching { ProgressView() }
                            Text(state)
                                .font(.callout)
                                .foregroundStyle(.secondary)
                        }
                        .accessibilityElement(children: .combine)
                        if model.canSearchAgain {
                            Button("Search again") { model.start() }
                                .accessibilityHint("Looks for wallets nearby again")
                        }
                    }
                }
                Section {
                    ForEach(model.devices) { device in
                        Button {
                            Task {
                                if await model.pick(device, into: send) { dismiss() }
                            }
                        } label: {
                            DeviceRow(device: device)
                        }
                        .disabled(!device.isPickable || model.isPicking)
                        .accessibilityHint(device.isPickable ? "Pays this device by Bluetooth" : "")
                    }
                } footer: {
                    Text("Pick the device whose key id the payee's screen shows.")
                }
                if let pick = model.pickText {
                    Section {
                        HStack(spacing: 10) {
                            if model.isPicking { ProgressView() }
                            Text(pick)
                                .font(.callout)
                        }
                        .accessibilityElement(children: .combine)
                    }
                }
            }
            .navigationTitle("Nearby devices")
            .navigationBarTitleDisplayMode(.inline)
            .toolbar {
                ToolbarItem(placement: .cancellationAction) {
                    Button("Close") { dismiss() }
                }
            }
        }
        // The search (found, nothing found) and the pick (connecting, ready, failed) reach VoiceOver as they change.
        .announcesChanges(model.searchAnnouncement)
        .announcesChanges(model.pickAnnouncement)
        .onAppear { model.start() }
        .onDisappear { model.stop() }
    }
}

/// One device: its advertised name, its key id, and why it cannot be picked.
struct DeviceRow: View {
    let device: NearbyDevicesModel.Device

    var body: some View {
        HStack(alignment: .top, spacing: 12) {
            Image(systemName: device.match == .matches ? "checkmark.seal.fill" : "iphone.radiowaves.left.and.right")
                .foregroundStyle(device.isPickable ? Color.accentColor : Color.secondary)
                .accessibilityHidden(true)
            VStack(alignment: .leading, spacing: 2) {
                Text(device.name)
                    .font(.body)
                    .foregroundStyle(device.isPickable ? Color.primary : Color.secondary)
                Text(device.keyText)
                    .font(.caption.monospaced())
                    .foregroundStyle(.secondary)
                if device.match == .matches {
                    Text("Matches the scanned request")
                        .font(.caption)
                        .foregroundStyle(.green)
                }
                if let mismatch = device.mismatchText {
                    Text(mismatch)
                        .font(.caption)
                        .foregroundStyle(.red)
                }
            }
        }
        .accessibilityElement(children: .combine)
    }
}
