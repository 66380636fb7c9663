// SwiftUI stand-in (never shipped): buttons, toggles, pickers, steppers, text fields,
// progress, share links, menus and empty states. Button actions are `@MainActor` closures,
// as in Apple's SDK.

// MARK: - Button

public nonisolated struct ButtonRole: Equatable, Sendable {
    let id: Int
    public static let destructive = ButtonRole(id: 0)
    public static let cancel = ButtonRole(id: 1)
}

public nonisolated struct Button<Label: View>: _PrimitiveView {
    @preconcurrency public nonisolated init(action: @escaping @MainActor () -> Void, @ViewBuilder label: () -> Label) {}
    @preconcurrency public nonisolated init(
        role: ButtonRole?, action: @escaping @MainActor () -> Void, @ViewBuilder label: () -> Label
    ) {}
}

extension Button where Label == Text {
    @preconcurrency public nonisolated init(_ titleKey: LocalizedStringKey, action: @escaping @MainActor () -> Void) {}
    @_disfavoredOverload
    @preconcurrency public nonisolated init<S: StringProtocol>(_ title: S, action: @escaping @MainActor () -> Void) {}
    @preconcurrency public nonisolated init(
        _ titleKey: LocalizedStringKey, role: ButtonRole?, action: @escaping @MainActor () -> Void
    ) {}
    @_disfavoredOverload
    @preconcurrency public nonisolated init<S: StringProtocol>(
        _ title: S, role: ButtonRole?, action: @escaping @MainActor () -> Void
    ) {}
}

extension Button where Label == SwiftUI.Label<Text, Image> {
    @preconcurrency public nonisolated init(
        _ titleKey: LocalizedStringKey, systemImage: String, action: @escaping @MainActor () -> Void
    ) {}
    @_disfavoredOverload
    @preconcurrency public nonisolated init<S: StringProtocol>(
        _ title: S, systemImage: String, action: @escaping @MainActor () -> Void
    ) {}
    @preconcurrency public nonisolated init(
        _ titleKey: LocalizedStringKey, systemImage: String, role: ButtonRole?, action: @escaping @MainActor () -> Void
    ) {}
    @_disfavoredOverload
    @preconcurrency public nonisolated init<S: StringProtocol>(
        _ title: S, systemImage: String, role: ButtonRole?, action: @escaping @MainActor () -> Void
    ) {}
}

/// A button style that draws the whole button (`.borderedProminent`, `.plain`, ...).
@MainActor @preconcurrency
public protocol PrimitiveButtonStyle {
    associatedtype Body: View
    typealias Configuration = PrimitiveButtonStyleConfiguration
    @ViewBuilder func makeBody(configuration: Configuration) -> Body
}

public nonisolated struct PrimitiveButtonStyleConfiguration {
    public nonisolated struct Label: _PrimitiveView {}
    public var role: ButtonRole? { standIn() }
    public var label: Label { standIn() }
    public func trigger() {}
}

/// A custom button appearance (a pill for quick amounts): `makeBody` gets the label and whether it is pressed.
@MainActor @preconcurrency
public protocol ButtonStyle {
    associatedtype Body: View
    typealias Configuration = ButtonStyleConfiguration
    @ViewBuilder func makeBody(configuration: Configuration) -> Body
}

public nonisolated struct ButtonStyleConfiguration {
    public nonisolated struct Label: _PrimitiveView {}
    public var role: ButtonRole? { standIn() }
    public var label: Label { standIn() }
    public var isPressed: Bool { standIn() }
}

public nonisolated struct BorderedButtonStyle: PrimitiveButtonStyle {
    public nonisolated init() {}
    public func makeBody(configuration: Configuration) -> some View { EmptyView() }
}

public nonisolated struct BorderedProminentButtonStyle: PrimitiveButtonStyle {
    public nonisolated init() {}
    public func makeBody(configuration: Configuration) -> some View { EmptyView() }
}

public nonisolated struct BorderlessButtonStyle: PrimitiveButtonStyle {
    public nonisolated init() {}
    public func makeBody(configuration: Configuration) -> some View { EmptyView() }
}

public nonisolated struct PlainButtonStyle: PrimitiveButtonStyle {
    public nonisolated init() {}
    public func makeBody(configuration: Configuration) -> some View { EmptyView() }
}

public nonisolated struct DefaultButtonStyle: PrimitiveButtonStyle {
    public nonisolated init() {}
    public func makeBody(configuration: Configuration) -> some View { EmptyView() }
}

extension PrimitiveButtonStyle where Self == BorderedButtonStyle {
    public static var bordered: BorderedButtonStyle { BorderedButtonStyle() }
}

extension PrimitiveButtonStyle where Self == BorderedProminentButtonStyle {
    public static var borderedProminent: BorderedProminentButtonStyle { BorderedProminentButtonStyle() }
}

extension PrimitiveButtonStyle where Self == BorderlessButtonStyle {
    public static var borderless: BorderlessButtonStyle { BorderlessButtonStyle() }
}

extension PrimitiveButtonStyle where Self == PlainButtonStyle {
    public static var plain: PlainButtonStyle { PlainButtonStyle() }
}

extension PrimitiveButtonStyle where Self == DefaultButtonStyle {
    public static var automatic: DefaultButtonStyle { DefaultButtonStyle() }
}

public nonisolated struct ButtonBorderShape: Equatable, Sendable {
    let id: Int
    public static let automatic = ButtonBorderShape(id: 0)
    public static let capsule = ButtonBorderShape(id: 1)
    public static let roundedRectangle = ButtonBorderShape(id: 2)
    public static let circle = ButtonBorderShape(id: 3)
    public static func roundedRectangle(radius: CGFloat) -> ButtonBorderShape { ButtonBorderShape(id: 4) }
}

public enum ControlSize: CaseIterable, Hashable, Sendable {
    case mini, small, regular, large, extraLarge
}

/// A link that opens a URL.
public nonisolated struct Link<Label: View>: _PrimitiveView {
    public nonisolated init(destination: URL, @ViewBuilder label: () -> Label) {}
}

extension Link where Label == Text {
    public nonisolated init(_ titleKey: LocalizedStringKey, destination: URL) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S, destination: URL) {}
}

public nonisolated struct Menu<Label: View, Content: View>: _PrimitiveView {
    public nonisolated init(@ViewBuilder content: () -> Content, @ViewBuilder label: () -> Label) {}
}

extension Menu where Label == Text {
    public nonisolated init(_ titleKey: LocalizedStringKey, @ViewBuilder content: () -> Content) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S, @ViewBuilder content: () -> Content) {}
}

extension Menu where Label == SwiftUI.Label<Text, Image> {
    public nonisolated init(_ titleKey: LocalizedStringKey, systemImage: String, @ViewBuilder content: () -> Content) {}
}

// MARK: - Toggle, Picker, Stepper

public nonisolated struct Toggle<Label: View>: _PrimitiveView {
    public nonisolated init(isOn: Binding<Bool>, @ViewBuilder label: () -> Label) {}
}

extension Toggle where Label == Text {
    public nonisolated init(_ titleKey: LocalizedStringKey, isOn: Binding<Bool>) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S, isOn: Binding<Bool>) {}
}

extension Toggle where Label == SwiftUI.Label<Text, Image> {
    public nonisolated init(_ titleKey: LocalizedStringKey, systemImage: String, isOn: Binding<Bool>) {}
}

@MainActor @preconcurrency
public protocol ToggleStyle {}

public nonisolated struct SwitchToggleStyle: ToggleStyle {
    public nonisolated init() {}
}

public nonisolated struct ButtonToggleStyle: ToggleStyle {
    public nonisolated init() {}
}

public nonisolated struct DefaultToggleStyle: ToggleStyle {
    public nonisolated init() {}
}

extension ToggleStyle where Self == SwitchToggleStyle {
    public static var `switch`: SwitchToggleStyle { SwitchToggleStyle() }
}

extension ToggleStyle where Self == ButtonToggleStyle {
    public static var button: ButtonToggleStyle { ButtonToggleStyle() }
}

extension ToggleStyle where Self == DefaultToggleStyle {
    public static var automatic: DefaultToggleStyle { DefaultToggleStyle() }
}

public nonisolated struct Picker<Label: View, SelectionValue: Hashable, Content: View>: _PrimitiveView {
    public nonisolated init(
        selection: Binding<SelectionValue>, @ViewBuilder content: () -> Content, @ViewBuilder label: () -> Label
    ) {}
}

extension Picker where Label == Text {
    public nonisolated init(
        _ titleKey: LocalizedStringKey, selection: Binding<SelectionValue>, @ViewBuilder content: () -> Content
    ) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(
        _ title: S, selection: Binding<SelectionValue>, @ViewBuilder content: () -> Content
    ) {}
}

extension Picker where Label == SwiftUI.Label<Text, Image> {
    public nonisolated init(
        _ titleKey: LocalizedStringKey, systemImage: String, selection: Binding<SelectionValue>,
        @ViewBuilder content: () -> Content
    ) {}
}

@MainActor @preconcurrency
public protocol PickerStyle {}

public nonisolated struct SegmentedPickerStyle: PickerStyle {
    public nonisolated init() {}
}

public nonisolated struct MenuPickerStyle: PickerStyle {
    public nonisolated init() {}
}

public nonisolated struct InlinePickerStyle: PickerStyle {
    public nonisolated init() {}
}

public nonisolated struct WheelPickerStyle: PickerStyle {
    public nonisolated init() {}
}

public nonisolated struct NavigationLinkPickerStyle: PickerStyle {
    public nonisolated init() {}
}

public nonisolated struct PalettePickerStyle: PickerStyle {
    public nonisolated init() {}
}

public nonisolated struct DefaultPickerStyle: PickerStyle {
    public nonisolated init() {}
}

extension PickerStyle where Self == SegmentedPickerStyle {
    public static var segmented: SegmentedPickerStyle { SegmentedPickerStyle() }
}

extension PickerStyle where Self == MenuPickerStyle {
    public static var menu: MenuPickerStyle { MenuPickerStyle() }
}

extension PickerStyle where Self == InlinePickerStyle {
    public static var inline: InlinePickerStyle { InlinePickerStyle() }
}

extension PickerStyle where Self == WheelPickerStyle {
    public static var wheel: WheelPickerStyle { WheelPickerStyle() }
}

extension PickerStyle where Self == NavigationLinkPickerStyle {
    public static var navigationLink: NavigationLinkPickerStyle { NavigationLinkPickerStyle() }
}

extension PickerStyle where Self == PalettePickerStyle {
    public static var palette: PalettePickerStyle { PalettePickerStyle() }
}

extension PickerStyle where Self == DefaultPickerStyle {
    public static var automatic: DefaultPickerStyle { DefaultPickerStyle() }
}

public nonisolated struct Stepper<Label: View>: _PrimitiveView {
    public nonisolated init<V: Strideable>(
        value: Binding<V>, in bounds: ClosedRange<V>, step: V.Stride = 1,
        onEditingChanged: @escaping (Bool) -> Void = { _ in }, @ViewBuilder label: () -> Label
    ) {}
    public nonisolated init<V: Strideable>(
        value: Binding<V>, step: V.Stride = 1, onEditingChanged: @escaping (Bool) -> Void = { _ in },
        @ViewBuilder label: () -> Label
    ) {}
    public nonisolated init(
        @ViewBuilder label: () -> Label, onIncrement: (() -> Void)?, onDecrement: (() -> Void)?,
        onEditingChanged: @escaping (Bool) -> Void = { _ in }
    ) {}
}

extension Stepper where Label == Text {
    public nonisolated init<V: Strideable>(
        _ titleKey: LocalizedStringKey, value: Binding<V>, in bounds: ClosedRange<V>, step: V.Stride = 1,
        onEditingChanged: @escaping (Bool) -> Void = { _ in }
    ) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol, V: Strideable>(
        _ title: S, value: Binding<V>, in bounds: ClosedRange<V>, step: V.Stride = 1,
        onEditingChanged: @escaping (Bool) -> Void = { _ in }
    ) {}
    public nonisolated init<V: Strideable>(
        _ titleKey: LocalizedStringKey, value: Binding<V>, step: V.Stride = 1,
        onEditingChanged: @escaping (Bool) -> Void = { _ in }
    ) {}
    public nonisolated init(
        _ titleKey: LocalizedStringKey, onIncrement: (() -> Void)?, onDecrement: (() -> Void)?,
        onEditingChanged: @escaping (Bool) -> Void = { _ in }
    ) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(
        _ title: S, onIncrement: (() -> Void)?, onDecrement: (() -> Void)?, onEditingChanged: @escaping (Bool) -> Void = { _ in }
    ) {}
}

public nonisolated struct Slider<Label: View, ValueLabel: View>: _PrimitiveView {
    public nonisolated init<V: BinaryFloatingPoint>(
        value: Binding<V>, in bounds: ClosedRange<V> = 0...1, step: V.Stride = 1,
        onEditingChanged: @escaping (Bool) -> Void = { _ in }
    ) where V.Stride: BinaryFloatingPoint, Label == EmptyView, ValueLabel == EmptyView {}
}

// MARK: - Text input

public nonisolated struct TextField<Label: View>: _PrimitiveView {
    public nonisolated init(text: Binding<String>, prompt: Text? = nil, @ViewBuilder label: () -> Label) {}
}

extension TextField where Label == Text {
    public nonisolated init(_ titleKey: LocalizedStringKey, text: Binding<String>) {}
    public nonisolated init(_ titleKey: LocalizedStringKey, text: Binding<String>, prompt: Text?) {}
    public nonisolated init(_ titleKey: LocalizedStringKey, text: Binding<String>, axis: Axis) {}
    public nonisolated init(_ titleKey: LocalizedStringKey, text: Binding<String>, prompt: Text?, axis: Axis) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S, text: Binding<String>) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S, text: Binding<String>, prompt: Text?) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S, text: Binding<String>, axis: Axis) {}
    public nonisolated init<F: ParseableFormatStyle>(
        _ titleKey: LocalizedStringKey, value: Binding<F.FormatInput>, format: F, prompt: Text? = nil
    )
    where F.FormatOutput == String {}
    public nonisolated init<F: ParseableFormatStyle>(
        _ titleKey: LocalizedStringKey, value: Binding<F.FormatInput?>, format: F, prompt: Text? = nil
    )
    where F.FormatOutput == String {}
}

extension TextField where Label == Text {
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol, F: ParseableFormatStyle>(
        _ title: S, value: Binding<F.FormatInput>, format: F, prompt: Text? = nil
    ) where F.FormatOutput == String {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol, F: ParseableFormatStyle>(
        _ title: S, value: Binding<F.FormatInput?>, format: F, prompt: Text? = nil
    ) where F.FormatOutput == String {}
}

public nonisolated struct SecureField<Label: View>: _PrimitiveView {
    public nonisolated init(text: Binding<String>, prompt: Text? = nil, @ViewBuilder label: () -> Label) {}
}

extension SecureField where Label == Text {
    public nonisolated init(_ titleKey: LocalizedStringKey, text: Binding<String>) {}
    public nonisolated init(_ titleKey: LocalizedStringKey, text: Binding<String>, prompt: Text?) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S, text: Binding<String>) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S, text: Binding<String>, prompt: Text?) {}
}

public nonisolated struct TextEditor: _PrimitiveView {
    public nonisolated init(text: Binding<String>) {}
}

@MainActor @preconcurrency
public protocol TextFieldStyle {}

public nonisolated struct RoundedBorderTextFieldStyle: TextFieldStyle {
    public nonisolated init() {}
}

public nonisolated struct PlainTextFieldStyle: TextFieldStyle {
    public nonisolated init() {}
}

extension TextFieldStyle where Self == RoundedBorderTextFieldStyle {
    public static var roundedBorder: RoundedBorderTextFieldStyle { RoundedBorderTextFieldStyle() }
}

extension TextFieldStyle where Self == PlainTextFieldStyle {
    public static var plain: PlainTextFieldStyle { PlainTextFieldStyle() }
}

public nonisolated struct SubmitLabel: Sendable {
    let id: Int
    public static let done = SubmitLabel(id: 0)
    public static let go = SubmitLabel(id: 1)
    public static let send = SubmitLabel(id: 2)
    public static let join = SubmitLabel(id: 3)
    public static let route = SubmitLabel(id: 4)
    public static let search = SubmitLabel(id: 5)
    public static let `return` = SubmitLabel(id: 6)
    public static let next = SubmitLabel(id: 7)
    public static let `continue` = SubmitLabel(id: 8)
}

public nonisolated struct SubmitTriggers: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let text = SubmitTriggers(rawValue: 1)
    public static let search = SubmitTriggers(rawValue: 2)
}

public nonisolated struct TextInputAutocapitalization: Sendable {
    let id: Int
    public static let never = TextInputAutocapitalization(id: 0)
    public static let words = TextInputAutocapitalization(id: 1)
    public static let sentences = TextInputAutocapitalization(id: 2)
    public static let characters = TextInputAutocapitalization(id: 3)
}

public nonisolated struct TextSelectability: Sendable {
    public static let enabled = TextSelectability()
    public static let disabled = TextSelectability()
}

// MARK: - Progress, empty states, sharing

public nonisolated struct ProgressView<Label: View, CurrentValueLabel: View>: _PrimitiveView {
    public nonisolated init<V: BinaryFloatingPoint>(value: V?, total: V = 1.0, @ViewBuilder label: () -> Label)
    where CurrentValueLabel == EmptyView {}
    public nonisolated init(@ViewBuilder label: () -> Label) where CurrentValueLabel == EmptyView {}
}

extension ProgressView where Label == EmptyView, CurrentValueLabel == EmptyView {
    public nonisolated init() {}
    public nonisolated init<V: BinaryFloatingPoint>(value: V?, total: V = 1.0) {}
}

extension ProgressView where Label == Text, CurrentValueLabel == EmptyView {
    public nonisolated init(_ titleKey: LocalizedStringKey) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S) {}
    public nonisolated init<V: BinaryFloatingPoint>(_ titleKey: LocalizedStringKey, value: V?, total: V = 1.0) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol, V: BinaryFloatingPoint>(_ title: S, value: V?, total: V = 1.0) {}
}

@MainActor @preconcurrency
public protocol ProgressViewStyle {}

public nonisolated struct CircularProgressViewStyle: ProgressViewStyle {
    public nonisolated init() {}
}

public nonisolated struct LinearProgressViewStyle: ProgressViewStyle {
    public nonisolated init() {}
}

extension ProgressViewStyle where Self == CircularProgressViewStyle {
    public static var circular: CircularProgressViewStyle { CircularProgressViewStyle() }
}

extension ProgressViewStyle where Self == LinearProgressViewStyle {
    public static var linear: LinearProgressViewStyle { LinearProgressViewStyle() }
}

public nonisolated struct ContentUnavailableView<Label: View, Description: View, Actions: View>: _PrimitiveView {
    public nonisolated init(
        @ViewBuilder label: () -> Label, @ViewBuilder description: () -> Description = { EmptyView() },
        @ViewBuilder actions: () -> Actions = { EmptyView() }
    ) {}
}

extension ContentUnavailableView where Label == SwiftUI.Label<Text, Image>, Description == Text?, Actions == EmptyView {
    public nonisolated init(_ title: LocalizedStringKey, systemImage name: String, description: Text? = nil) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S, systemImage name: String, description: Text? = nil) {}
}

/// The default label of a ShareLink ("Share" with the share symbol).
public nonisolated struct DefaultShareLinkLabel: _PrimitiveView {}

/// Shares text or a URL through the share sheet. (Apple's takes any `Transferable`; the stand-in
/// declares the two the app shares, since CoreTransferable does not exist on Linux.)
public nonisolated struct ShareLink<Label: View>: _PrimitiveView {
    public nonisolated init(item: String, subject: Text? = nil, message: Text? = nil, @ViewBuilder label: () -> Label) {}
    public nonisolated init(item: URL, subject: Text? = nil, message: Text? = nil, @ViewBuilder label: () -> Label) {}
}

extension ShareLink where Label == DefaultShareLinkLabel {
    public nonisolated init(item: String, subject: Text? = nil, message: Text? = nil) {}
    public nonisolated init(item: URL, subject: Text? = nil, message: Text? = nil) {}
}

extension ShareLink where Label == SwiftUI.Label<Text, Image> {
    public nonisolated init(_ titleKey: LocalizedStringKey, item: String, subject: Text? = nil, message: Text? = nil) {}
    public nonisolated init(_ titleKey: LocalizedStringKey, item: URL, subject: Text? = nil, message: Text? = nil) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S, item: String, subject: Text? = nil, message: Text? = nil) {}
}
