/// The keyboard focus of one form: its fields in order, which one is focused, and what "next"
/// does. The SwiftUI layer binds `focused` to `@FocusState`; Return and the toolbar's Next call
/// `next()`, Previous calls `previous()`, and a tap outside any field calls `clearFocus()`.
///
/// A value held by the form's model (so the model's observation covers it); the form itself
/// submits, through `FocusableForm.focusNext()`, when "next" runs past the last field.
public struct FormFocus<Field: Hashable & Sendable>: Equatable, Sendable {
    /// What `next()` did.
    public enum Step: Equatable, Sendable {
        case focused(Field)
        /// Past the last field: focus is cleared and the form should submit.
        case submit
    }

    /// The fields in the order Return walks them.
    public let fields: [Field]
    /// The field focused when the screen appears (the amount on Send), or none.
    public let initial: Field?
    /// The field with the keyboard now; nil when none has it.
    public var focused: Field?

    /// A form with `fields` in this order. `initial` must be one of them (ignored otherwise).
    public init(_ fields: [Field], initial: Field? = nil) {
        self.fields = fields
        self.initial = initial.flatMap { fields.contains($0) ? $0 : nil }
        self.focused = nil
    }

    /// The screen appeared: focus the initial field (the keyboard comes up with it).
    public mutating func appear() { focused = initial }

    /// Moves to the field after the focused one; after the last, clears focus and returns
    /// `.submit`. With nothing focused, focuses the first field.
    @discardableResult
    public mutating func next() -> Step {
        guard let current = focused, let i = fields.firstIndex(of: current) else {
            guard let first = fields.first else { return .submit }
            focused = first
            return .focused(first)
        }
        guard i + 1 < fields.count else {
            focused = nil
            return .submit
        }
        focused = fields[i + 1]
        return .focused(fields[i + 1])
    }

    /// Moves to the field before the focused one (stays on the first).
    public mutating func previous() {
        guard let current = focused, let i = fields.firstIndex(of: current), i > 0 else { return }
        focused = fields[i - 1]
    }

    /// Focuses `field` (a tap on it); fields not in the form are ignored.
    public mutating func focus(_ field: Field) {
        if fields.contains(field) { focused = field }
    }

    /// A tap outside every field: the keyboard goes away.
    public mutating func clearFocus() { focused = nil }

    /// Whether Return on the focused field submits (the keyboard shows "Done", not "Next").
    public var returnSubmits: Bool { focused == nil || focused == fields.last }
    /// Whether the toolbar's Previous has somewhere to go.
    public var hasPrevious: Bool { focused.flatMap { fields.firstIndex(of: $0) }.map { $0 > 0 } ?? false }
}

extension FormFocus where Field: CaseIterable {
    /// A form whose fields are all the enum's cases, in declaration order.
    public init(initial: Field? = nil) {
        self.init(Array(Field.allCases), initial: initial)
    }
}

/// A screen model with a form: "next" past the last field calls its `submit()`.
@MainActor
public protocol FocusableForm: AnyObject {
    associatedtype Field: Hashable & Sendable
    var focus: FormFocus<Field> { get set }
    /// What the last field's Return does (the form's primary button).
    func submit()
}

extension FocusableForm {
    /// Return / Next: to the next field, or submit after the last.
    public func focusNext() {
        if focus.next() == .submit { submit() }
    }
}
