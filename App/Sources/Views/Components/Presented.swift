import SwiftUI

/// A screen model handed to `.sheet(item:)`: the sheet lives exactly as long as this one model
/// (made once by the app model's `make…` when the sheet opens, never again on a redraw).
struct Presented<Model: AnyObject>: Identifiable {
    let model: Model
    var id: ObjectIdentifier { ObjectIdentifier(model) }

    init(_ model: Model) { self.model = model }
}

extension Binding {
    /// `true` while the optional holds a value (an alert's message, a sheet's model); setting
    /// it to `false` (the alert or sheet dismissed) clears the value. Built on the binding
    /// itself, so no view state is captured in the `@Sendable` accessors.
    func isPresent<Wrapped: Sendable>() -> Binding<Bool> where Value == Wrapped? {
        Binding<Bool>(get: { wrappedValue != nil }, set: { if !$0 { wrappedValue = nil } })
    }
}

extension View {
    /// An alert with one OK button showing `message` while it is non-nil; OK clears it. For the
    /// screens' one-line notices ("That code is not a payment…").
    func messageAlert(_ title: LocalizedStringKey, message: Binding<String?>) -> some View {
        alert(title, isPresented: message.isPresent(), presenting: message.wrappedValue) { _ in
            Button("OK", role: .cancel) {}
        } message: { text in
            Text(text)
        }
    }
}

/// The small title above a form field (the field itself carries the VoiceOver label).
struct FieldTitle: View {
    let title: LocalizedStringKey

    init(_ title: LocalizedStringKey) { self.title = title }

    var body: some View {
        Text(title)
            .font(.subheadline)
            .foregroundStyle(.secondary)
            .accessibilityHidden(true)
    }
}

/// A button's label that shows a spinner beside it while its work runs (Refresh, Back up,
/// Restore).
struct BusyLabel: View {
    let title: LocalizedStringKey
    let systemImage: String
    let isBusy: Bool

    init(_ title: LocalizedStringKey, systemImage: String, isBusy: Bool) {
        self.title = title
        self.systemImage = systemImage
        self.isBusy = isBusy
    }

    var body: some View {
        HStack {
            Label(title, systemImage: systemImage)
            if isBusy {
                Spacer()
                ProgressView()
            }
        }
    }
}

/// The line under a form's action saying how it went: red when it failed.
struct StatusLine: View {
    let text: String
    let isError: Bool

    var body: some View {
        Text(text)
            .font(.footnote)
            .foregroundStyle(isError ? Color.red : Color.secondary)
            .fixedSize(horizontal: false, vertical: true)
    }
}
