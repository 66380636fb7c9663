import Testing
import WalletAppModels

enum SendField: CaseIterable, Hashable, Sendable { case recipient, amount, description }

/// A form as a screen model would hold one.
@MainActor
final class ProbeForm: FocusableForm {
    var focus = FormFocus<SendField>(initial: .amount)
    var submitted = 0
    func submit() { submitted += 1 }
}

@Suite struct FormFocusTests {
    @Test func fieldsInDeclarationOrderAndInitialFocusOnAppear() {
        var focus = FormFocus<SendField>(initial: .amount)
        #expect(focus.fields == [.recipient, .amount, .description])
        #expect(focus.focused == nil, "nothing is focused before the screen appears")
        focus.appear()
        #expect(focus.focused == .amount)
    }

    @Test func nextWalksTheOrderAndThenSubmits() {
        var focus = FormFocus<SendField>()
        #expect(focus.next() == .focused(.recipient), "from nothing, the first field")
        #expect(focus.returnSubmits == false)
        #expect(focus.next() == .focused(.amount))
        #expect(focus.next() == .focused(.description))
        #expect(focus.returnSubmits, "the last field's Return says Done")
        #expect(focus.next() == .submit)
        #expect(focus.focused == nil, "submitting hides the keyboard")
    }

    @Test func previousFocusAndClear() {
        var focus = FormFocus<SendField>()
        focus.focus(.description)
        #expect(focus.hasPrevious)
        focus.previous()
        #expect(focus.focused == .amount)
        focus.previous()
        focus.previous()
        #expect(focus.focused == .recipient, "Previous stops at the first field")
        #expect(!focus.hasPrevious)
        focus.clearFocus()
        #expect(focus.focused == nil)
    }

    @Test func anExplicitOrderAndAnInitialOutsideIt() {
        // Receive: amount → description, no recipient.
        var focus = FormFocus<SendField>([.amount, .description], initial: .recipient)
        #expect(focus.initial == nil, "an initial field the form does not have is ignored")
        focus.focus(.recipient)
        #expect(focus.focused == nil)
        focus.focus(.amount)
        #expect(focus.next() == .focused(.description))
        #expect(focus.next() == .submit)
        var empty = FormFocus<SendField>([])
        #expect(empty.next() == .submit, "a form without fields submits")
    }

    @Test @MainActor func theLastFieldCallsTheFormsSubmit() {
        let form = ProbeForm()
        form.focus.appear()
        form.focusNext()
        #expect(form.focus.focused == .description)
        #expect(form.submitted == 0)
        form.focusNext()
        #expect(form.submitted == 1)
        #expect(form.focus.focused == nil)
    }
}
