import SwiftUI
import WalletAppModels

/// The scanner: the camera reads codes continuously into `ScanAssembler` (frames in any order,
/// "2 of 3"), with haptic feedback per new frame, a torch toggle, "Validating…" once the
/// message is complete, clear errors, and "Enter code manually" (paste the code's text, one
/// frame per line). A complete message goes to `onResult`; the screen that opened the scanner
/// routes it (a request opens Send prefilled, a payment goes to Receive, a receipt to Send).
struct ScanView: View {
    let model: ScanAssembler
    var title: LocalizedStringKey = "Scan"
    let onResult: @MainActor (ScanResult) -> Void

    @State private var torchOn = false
    @State private var showsManualEntry = false
    @Environment(\.dismiss) private var dismiss

    var body: some View {
        NavigationStack {
            ZStack(alignment: .bottom) {
                CameraScannerView(isTorchOn: $torchOn) { text in model.scan(text) }
                    .ignoresSafeArea()
                    .accessibilityLabel("Camera viewfinder")
                    .accessibilityHint("Point the camera at the code on the other phone")
                statusPanel
                    .padding()
            }
            .overlay {
                if model.result != nil {
                    VStack(spacing: 12) {
                        ProgressView()
                        Text("Validating…")
                            .font(.headline)
                    }
                    .padding(24)
                    .background(RoundedRectangle(cornerRadius: 16).fill(.regularMaterial))
                    .accessibilityElement(children: .combine)
                }
            }
            .navigationTitle(title)
            .navigationBarTitleDisplayMode(.inline)
            .toolbar {
                ToolbarItem(placement: .cancellationAction) {
                    Button("Close") { dismiss() }
                }
                ToolbarItem(placement: .primaryAction) {
                    Button {
                        torchOn.toggle()
                    } label: {
                        Image(systemName: torchOn ? "flashlight.on.fill" : "flashlight.off.fill")
                    }
                    .accessibilityLabel(torchOn ? "Turn torch off" : "Turn torch on")
                }
            }
            .sheet(isPresented: $showsManualEntry) {
                ManualCodeEntryView(model: model)
            }
        }
        .sensoryFeedback(.selection, trigger: model.progress)
        // "3 of 8 parts received": VoiceOver hears each new part, as a sighted person sees it.
        .announcesChanges(model.progressAnnouncement)
        .sensoryFeedback(.success, trigger: model.result)
        .sensoryFeedback(.error, trigger: model.error)
        .onChange(of: model.result) { _, result in
            if let result { onResult(result) }
        }
    }

    private var statusPanel: some View {
        VStack(spacing: 10) {
            if let error = model.error {
                Label(error.description, systemImage: "exclamationmark.triangle.fill")
                    .font(.callout)
                    .foregroundStyle(.red)
                    .accessibilityLabel(ViewText.error(error.description))
            } else if let progress = model.progress {
                Text(ViewText.readingCode(progress.description))
                    .font(.callout.monospacedDigit())
                    .accessibilityLabel(progress.accessibilityText)
            } else {
                Text("Point the camera at the code on the other phone.")
                    .font(.callout)
            }
            AdaptiveStack(stackedAlignment: .center) {
                Button("Enter code manually") { showsManualEntry = true }
                    .buttonStyle(.bordered)
                    .accessibilityHint("Paste the code's text instead of scanning it")
                if model.progress != nil || model.error != nil {
                    Button("Scan again") { model.reset() }
                        .buttonStyle(.bordered)
                        .accessibilityHint("Forgets the parts read so far and starts over")
                }
            }
        }
        .padding()
        .frame(maxWidth: .infinity)
        .background(RoundedRectangle(cornerRadius: 16).fill(.regularMaterial))
    }
}

/// "Enter code manually": the code's text pasted (one frame per line) into the same assembler.
struct ManualCodeEntryView: View {
    let model: ScanAssembler
    @State private var text = ""
    @State private var failure: String?
    @FocusState private var focused: Bool
    @Environment(\.dismiss) private var dismiss

    var body: some View {
        NavigationStack {
            ScrollView {
                VStack(alignment: .leading, spacing: 12) {
                    Text("Paste the code's text. It starts with OW:; a code of several parts has one part per line.")
                        .font(.callout)
                        .foregroundStyle(.secondary)
                    TextField("OW:…", text: $text, axis: .vertical)
                        .lineLimit(4...12)
                        .font(.body.monospaced())
                        .textFieldStyle(.roundedBorder)
                        .textInputAutocapitalization(.never)
                        .autocorrectionDisabled()
                        .focused($focused)
                        .keepsKeyboardOnTap()
                        .accessibilityLabel("Code text")
                    Button {
                        if case .failed(let error) = model.enter(text) {
                            failure = error.description
                        } else if model.result != nil {
                            dismiss()
                        }
                    } label: {
                        Text("Use code").frame(maxWidth: .infinity)
                    }
                    .buttonStyle(.borderedProminent)
                    .disabled(text.isEmpty)
                }
                .padding()
            }
            .navigationTitle("Enter code")
            .navigationBarTitleDisplayMode(.inline)
            .toolbar {
                ToolbarItem(placement: .cancellationAction) {
                    Button("Cancel") { dismiss() }
                }
                ToolbarItemGroup(placement: .keyboard) {
                    Spacer()
                    Button("Done") { focused = false }
                        .accessibilityLabel("Hide keyboard")
                }
            }
        }
        .dismissesKeyboardOnTap { focused = false }
        .messageAlert("This code cannot be used", message: $failure)
        .task {
            try? await Task.sleep(for: FocusSync<Bool>.presentationDelay)
            focused = true
        }
    }
}
