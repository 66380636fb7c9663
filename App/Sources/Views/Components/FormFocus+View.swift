import SwiftUI
import WalletAppModels

// The form models own the focus order (`FormFocus`: which field is focused, what Next and
// Previous do, when Return submits). These helpers are the only place the views meet it:
// `@FocusState` is synced both ways with `model.focus.focused`, the keyboard toolbar offers
// Previous / Next / Done, and Return on a text field moves on (the last field submits).

/// Keeps a screen's `@FocusState` and its model's `focus.focused` equal, both ways: the model
/// moving focus (a quick amount moving on to the description, Next) moves the keyboard, and a
/// tap on a field (or Tab on a hardware keyboard) tells the model.
///
/// The model's first focus (set by its `appear()`) is applied after a short delay: a field
/// focused while its sheet is still sliding in often does not get the keyboard on iOS, so the
/// amount field's decimal pad would not come up.
struct FocusSync<Field: Hashable>: ViewModifier {
    let state: FocusState<Field?>.Binding
    @Binding var model: Field?
    /// False until the presentation delay passed: the model's focus is applied then, not before.
    @State private var presented = false

    /// Long enough for a sheet's presentation to finish.
    static var presentationDelay: Duration { .milliseconds(450) }

    func body(content: Content) -> some View {
        content
            .task {
                try? await Task.sleep(for: Self.presentationDelay)
                presented = true
                if state.wrappedValue != model { state.wrappedValue = model }
            }
            .onChange(of: model) { _, new in
                if presented, state.wrappedValue != new { state.wrappedValue = new }
            }
            .onChange(of: state.wrappedValue) { _, new in
                if model != new { model = new }
            }
    }
}

extension View {
    /// Binds `focused` (the screen's `@FocusState`) to the model's `focus.focused`, both ways
    /// (see `FocusSync`). Pass `$model.focus.focused` from an `@Bindable` model.
    func syncsFocus<Field: Hashable>(_ focused: FocusState<Field?>.Binding, with model: Binding<Field?>) -> some View {
        modifier(FocusSync(state: focused, model: model))
    }

    /// The keyboard's toolbar for `form`: Previous and Next walk the model's field order
    /// (`focus.previous()`, `focusNext()`), Done hides the keyboard (`focus.clearFocus()`).
    /// Next is disabled on the last field: there Return (or the screen's button) submits.
    func formKeyboardToolbar<Form: FocusableForm>(_ form: Form) -> some View {
        toolbar {
            ToolbarItemGroup(placement: .keyboard) {
                Button {
                    form.focus.previous()
                } label: {
                    Image(systemName: "chevron.up")
                }
                .disabled(!form.focus.hasPrevious)
                .accessibilityLabel("Previous field")
                Button {
                    form.focusNext()
                } label: {
                    Image(systemName: "chevron.down")
                }
                .disabled(form.focus.returnSubmits)
                .accessibilityLabel("Next field")
                Spacer()
                Button("Done") { form.focus.clearFocus() }
                    .accessibilityLabel("Hide keyboard")
            }
        }
    }

    /// Return on this text field: the next field, or — on the last — the form's submit. The key
    /// is labelled to match ("Next" or "Done").
    func returnAdvances<Form: FocusableForm>(_ form: Form) -> some View {
        submitLabel(form.focus.returnSubmits ? .done : .next)
            .onSubmit { form.focusNext() }
    }
}

/// A text field on a form: a title above, the text, Return walking the form's fields, the
/// focus bound to the screen's `@FocusState`, and a tap on it kept from dismissing the keyboard.
struct FormTextField<Form: FocusableForm>: View {
    let title: LocalizedStringKey
    let prompt: LocalizedStringKey
    @Binding var text: String
    let form: Form
    let field: Form.Field
    let focused: FocusState<Form.Field?>.Binding
    var isSecure = false

    init(
        _ title: LocalizedStringKey, prompt: LocalizedStringKey = "", text: Binding<String>, form: Form, field: Form.Field,
        focused: FocusState<Form.Field?>.Binding, isSecure: Bool = false
    ) {
        self.title = title
        self.prompt = prompt
        self._text = text
        self.form = form
        self.field = field
        self.focused = focused
        self.isSecure = isSecure
    }

    var body: some View {
        VStack(alignment: .leading, spacing: 4) {
            FieldTitle(title)
            Group {
                if isSecure {
                    SecureField(title, text: $text, prompt: Text(prompt))
                } else {
                    TextField(title, text: $text, prompt: Text(prompt))
                }
            }
            .textFieldStyle(.roundedBorder)
            .focused(focused, equals: field)
            .returnAdvances(form)
            .keepsKeyboardOnTap()
            .accessibilityLabel(Text(title))
        }
    }
}
