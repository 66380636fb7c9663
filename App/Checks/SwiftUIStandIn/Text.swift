// SwiftUI stand-in (never shipped): text, localized keys, fonts, images and labels.

// MARK: - LocalizedStringKey

/// A string literal given to Text, Button, Label... Interpolation accepts exactly what Apple's
/// does: strings, numbers (`_FormatSpecifiable`), `Text`, `Image`, format styles and dates —
/// NOT an arbitrary value (`"\(amount)"` of a struct fails on iOS too: "requires that X inherit from NSObject").
@frozen
public nonisolated struct LocalizedStringKey: Equatable, Sendable, ExpressibleByStringInterpolation {
    public nonisolated init(_ value: String) {}
    public nonisolated init(stringLiteral value: String) {}
    public nonisolated init(stringInterpolation: StringInterpolation) {}

    public nonisolated struct StringInterpolation: StringInterpolationProtocol {
        public init(literalCapacity: Int, interpolationCount: Int) {}
        public mutating func appendLiteral(_ literal: String) {}
        public mutating func appendInterpolation(_ string: String) {}
        public mutating func appendInterpolation<Subject: ReferenceConvertible>(_ subject: Subject, formatter: Formatter? = nil) {
        }
        public mutating func appendInterpolation<Subject: NSObject>(_ subject: Subject, formatter: Formatter? = nil) {}
        public mutating func appendInterpolation<F: FormatStyle>(_ input: F.FormatInput, format: F)
        where F.FormatInput: Equatable, F.FormatOutput == String {}
        public mutating func appendInterpolation<T: _FormatSpecifiable>(_ value: T) {}
        public mutating func appendInterpolation<T: _FormatSpecifiable>(_ value: T, specifier: String) {}
        public mutating func appendInterpolation(_ text: Text) {}
        public mutating func appendInterpolation(_ image: Image) {}
        public mutating func appendInterpolation(_ date: Date, style: Text.DateStyle) {}
        public mutating func appendInterpolation(_ attributedString: AttributedString) {}
    }
}

/// Numbers a localized string can format (`Text("\(count) notes")`).
public protocol _FormatSpecifiable: Equatable {}
extension Int: _FormatSpecifiable {}
extension Int8: _FormatSpecifiable {}
extension Int16: _FormatSpecifiable {}
extension Int32: _FormatSpecifiable {}
extension Int64: _FormatSpecifiable {}
extension UInt: _FormatSpecifiable {}
extension UInt8: _FormatSpecifiable {}
extension UInt16: _FormatSpecifiable {}
extension UInt32: _FormatSpecifiable {}
extension UInt64: _FormatSpecifiable {}
extension Float: _FormatSpecifiable {}
extension Double: _FormatSpecifiable {}
extension CGFloat: _FormatSpecifiable {}

// MARK: - Text

@frozen
public nonisolated struct Text: _PrimitiveView, Equatable, Sendable {
    public nonisolated init(
        _ key: LocalizedStringKey, tableName: String? = nil, bundle: Bundle? = nil, comment: StaticString? = nil
    ) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ content: S) {}
    public nonisolated init(verbatim content: String) {}
    public nonisolated init(_ attributedContent: AttributedString) {}
    public nonisolated init(_ date: Date, style: DateStyle) {}
    public nonisolated init(_ dates: ClosedRange<Date>) {}
    public nonisolated init(_ interval: DateInterval) {}
    public nonisolated init(
        timerInterval: ClosedRange<Date>, pauseTime: Date? = nil, countsDown: Bool = true, showsHours: Bool = true
    ) {}
    public nonisolated init<F: FormatStyle>(_ input: F.FormatInput, format: F)
    where F.FormatInput: Equatable, F.FormatOutput == String {}
    public nonisolated init(_ image: Image) {}

    public nonisolated struct DateStyle: Sendable {
        public static let time = DateStyle()
        public static let date = DateStyle()
        public static let relative = DateStyle()
        public static let offset = DateStyle()
        public static let timer = DateStyle()
    }

    public enum Case: Sendable, Hashable {
        case uppercase, lowercase
    }

    public enum TruncationMode: Sendable, Hashable {
        case head, tail, middle
    }

    public static func + (lhs: Text, rhs: Text) -> Text { lhs }

    // Text-returning modifiers, so Text values concatenate after styling.
    public nonisolated func font(_ font: Font?) -> Text { self }
    public nonisolated func fontWeight(_ weight: Font.Weight?) -> Text { self }
    public nonisolated func fontDesign(_ design: Font.Design?) -> Text { self }
    public nonisolated func fontWidth(_ width: Font.Width?) -> Text { self }
    public nonisolated func foregroundColor(_ color: Color?) -> Text { self }
    public nonisolated func foregroundStyle<S: ShapeStyle>(_ style: S) -> Text { self }
    public nonisolated func bold() -> Text { self }
    public nonisolated func bold(_ isActive: Bool) -> Text { self }
    public nonisolated func italic() -> Text { self }
    public nonisolated func italic(_ isActive: Bool) -> Text { self }
    public nonisolated func monospaced(_ isActive: Bool = true) -> Text { self }
    public nonisolated func monospacedDigit() -> Text { self }
    public nonisolated func strikethrough(_ isActive: Bool = true, color: Color? = nil) -> Text { self }
    public nonisolated func underline(_ isActive: Bool = true, color: Color? = nil) -> Text { self }
    public nonisolated func kerning(_ kerning: CGFloat) -> Text { self }
    public nonisolated func tracking(_ tracking: CGFloat) -> Text { self }
    public nonisolated func baselineOffset(_ baselineOffset: CGFloat) -> Text { self }
    public nonisolated func textScale(_ scale: TextScale, isEnabled: Bool = true) -> Text { self }
}

public nonisolated struct TextScale: Sendable, Hashable {
    public static let `default` = TextScale()
    public static let secondary = TextScale()
}

public enum TextAlignment: Hashable, CaseIterable, Sendable {
    case leading, center, trailing
}

// MARK: - Font

@frozen
public nonisolated struct Font: Hashable, Sendable {
    public static let largeTitle = Font()
    public static let title = Font()
    public static let title2 = Font()
    public static let title3 = Font()
    public static let headline = Font()
    public static let subheadline = Font()
    public static let body = Font()
    public static let callout = Font()
    public static let footnote = Font()
    public static let caption = Font()
    public static let caption2 = Font()

    public static func system(size: CGFloat, weight: Weight? = nil, design: Design? = nil) -> Font { Font() }
    public static func system(_ style: TextStyle, design: Design? = nil, weight: Weight? = nil) -> Font { Font() }
    public static func custom(_ name: String, size: CGFloat) -> Font { Font() }
    public static func custom(_ name: String, size: CGFloat, relativeTo textStyle: TextStyle) -> Font { Font() }

    public func italic() -> Font { self }
    public func bold() -> Font { self }
    public func monospaced() -> Font { self }
    public func monospacedDigit() -> Font { self }
    public func smallCaps() -> Font { self }
    public func weight(_ weight: Weight) -> Font { self }
    public func width(_ width: Width) -> Font { self }
    public func leading(_ leading: Leading) -> Font { self }

    public enum TextStyle: Hashable, CaseIterable, Sendable {
        case largeTitle, title, title2, title3, headline, subheadline, body, callout, footnote, caption, caption2
    }

    @frozen
    public nonisolated struct Weight: Hashable, Sendable {
        public static let ultraLight = Weight()
        public static let thin = Weight()
        public static let light = Weight()
        public static let regular = Weight()
        public static let medium = Weight()
        public static let semibold = Weight()
        public static let bold = Weight()
        public static let heavy = Weight()
        public static let black = Weight()
    }

    public enum Design: Hashable, Sendable {
        case `default`, serif, rounded, monospaced
    }

    public nonisolated struct Width: Hashable, Sendable {
        public static let compressed = Width()
        public static let condensed = Width()
        public static let standard = Width()
        public static let expanded = Width()
    }

    public enum Leading: Hashable, Sendable {
        case standard, tight, loose
    }
}

// MARK: - Image

@frozen
public nonisolated struct Image: _PrimitiveView, Equatable, Sendable {
    /// An SF Symbol.
    public nonisolated init(systemName: String) {}
    public nonisolated init(systemName: String, variableValue: Double?) {}
    /// An image from the asset catalog.
    public nonisolated init(_ name: String, bundle: Bundle? = nil) {}
    public nonisolated init(decorative name: String, bundle: Bundle? = nil) {}

    public enum ResizingMode: Sendable, Hashable {
        case tile, stretch
    }

    public enum Interpolation: Sendable, Hashable {
        case none, low, medium, high
    }

    public enum TemplateRenderingMode: Sendable, Hashable {
        case template, original
    }

    public enum Scale: Sendable, Hashable {
        case small, medium, large
    }

    public nonisolated func resizable(capInsets: EdgeInsets = EdgeInsets(), resizingMode: ResizingMode = .stretch) -> Image {
        self
    }
    public nonisolated func interpolation(_ interpolation: Interpolation) -> Image { self }
    public nonisolated func antialiased(_ isAntialiased: Bool) -> Image { self }
    public nonisolated func renderingMode(_ renderingMode: TemplateRenderingMode?) -> Image { self }
    public nonisolated func symbolRenderingMode(_ mode: SymbolRenderingMode?) -> Image { self }
}

public nonisolated struct SymbolRenderingMode: Sendable {
    public static let monochrome = SymbolRenderingMode()
    public static let multicolor = SymbolRenderingMode()
    public static let hierarchical = SymbolRenderingMode()
    public static let palette = SymbolRenderingMode()
}

public nonisolated struct SymbolVariants: Hashable, Sendable {
    public static let none = SymbolVariants()
    public static let circle = SymbolVariants()
    public static let square = SymbolVariants()
    public static let fill = SymbolVariants()
    public static let slash = SymbolVariants()
    public var fill: SymbolVariants { self }
    public var circle: SymbolVariants { self }
}

// MARK: - Label

public nonisolated struct Label<Title: View, Icon: View>: _PrimitiveView {
    public nonisolated init(@ViewBuilder title: () -> Title, @ViewBuilder icon: () -> Icon) {}
}

extension Label where Title == Text, Icon == Image {
    public nonisolated init(_ titleKey: LocalizedStringKey, systemImage name: String) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S, systemImage name: String) {}
    public nonisolated init(_ titleKey: LocalizedStringKey, image name: String) {}
}

@MainActor @preconcurrency
public protocol LabelStyle {
    associatedtype Body: View
    typealias Configuration = LabelStyleConfiguration
    @ViewBuilder func makeBody(configuration: Configuration) -> Body
}

public nonisolated struct LabelStyleConfiguration {
    public nonisolated struct Title: _PrimitiveView {}
    public nonisolated struct Icon: _PrimitiveView {}
    public var title: Title { standIn() }
    public var icon: Icon { standIn() }
}

public nonisolated struct IconOnlyLabelStyle: LabelStyle {
    public nonisolated init() {}
    public func makeBody(configuration: Configuration) -> some View { EmptyView() }
}

public nonisolated struct TitleOnlyLabelStyle: LabelStyle {
    public nonisolated init() {}
    public func makeBody(configuration: Configuration) -> some View { EmptyView() }
}

public nonisolated struct TitleAndIconLabelStyle: LabelStyle {
    public nonisolated init() {}
    public func makeBody(configuration: Configuration) -> some View { EmptyView() }
}

public nonisolated struct DefaultLabelStyle: LabelStyle {
    public nonisolated init() {}
    public func makeBody(configuration: Configuration) -> some View { EmptyView() }
}

extension LabelStyle where Self == IconOnlyLabelStyle {
    public static var iconOnly: IconOnlyLabelStyle { IconOnlyLabelStyle() }
}

extension LabelStyle where Self == TitleOnlyLabelStyle {
    public static var titleOnly: TitleOnlyLabelStyle { TitleOnlyLabelStyle() }
}

extension LabelStyle where Self == TitleAndIconLabelStyle {
    public static var titleAndIcon: TitleAndIconLabelStyle { TitleAndIconLabelStyle() }
}

extension LabelStyle where Self == DefaultLabelStyle {
    public static var automatic: DefaultLabelStyle { DefaultLabelStyle() }
}

/// A label and its value, in a row (`LabeledContent("Amount", value: "12.50")`).
public nonisolated struct LabeledContent<Label, Content>: _PrimitiveView {
    public nonisolated init(@ViewBuilder content: () -> Content, @ViewBuilder label: () -> Label)
    where Label: View, Content: View {}
}

extension LabeledContent where Label == Text, Content: View {
    public nonisolated init(_ titleKey: LocalizedStringKey, @ViewBuilder content: () -> Content) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S, @ViewBuilder content: () -> Content) {}
}

extension LabeledContent where Label == Text, Content == Text {
    public nonisolated init<S: StringProtocol>(_ titleKey: LocalizedStringKey, value: S) {}
    @_disfavoredOverload
    public nonisolated init<S1: StringProtocol, S2: StringProtocol>(_ title: S1, value: S2) {}
    public nonisolated init<F: FormatStyle>(_ titleKey: LocalizedStringKey, value: F.FormatInput, format: F)
    where F.FormatInput: Equatable, F.FormatOutput == String {}
}
