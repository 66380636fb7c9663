// SwiftUI stand-in (never shipped): colors, shape styles, materials and shapes.
// No UIColor/UIImage here on purpose: views stay free of UIKit (COMMON.md), so
// `Color(.systemBackground)` fails this check; use `.background`, `.secondary`, materials.

// MARK: - ShapeStyle

public protocol ShapeStyle: Sendable {}

extension ShapeStyle {
    public func opacity(_ opacity: Double) -> some ShapeStyle { self }
}

public nonisolated struct HierarchicalShapeStyle: ShapeStyle {
    public static let primary = HierarchicalShapeStyle()
    public static let secondary = HierarchicalShapeStyle()
    public static let tertiary = HierarchicalShapeStyle()
    public static let quaternary = HierarchicalShapeStyle()
    public static let quinary = HierarchicalShapeStyle()
}

extension ShapeStyle where Self == HierarchicalShapeStyle {
    public static var primary: HierarchicalShapeStyle { .primary }
    public static var secondary: HierarchicalShapeStyle { .secondary }
    public static var tertiary: HierarchicalShapeStyle { .tertiary }
    public static var quaternary: HierarchicalShapeStyle { .quaternary }
    public static var quinary: HierarchicalShapeStyle { .quinary }
}

extension ShapeStyle {
    public var secondary: some ShapeStyle { self }
    public var tertiary: some ShapeStyle { self }
}

public nonisolated struct ForegroundStyle: ShapeStyle {
    public nonisolated init() {}
}

extension ShapeStyle where Self == ForegroundStyle {
    public static var foreground: ForegroundStyle { ForegroundStyle() }
}

public nonisolated struct BackgroundStyle: ShapeStyle {
    public nonisolated init() {}
}

extension ShapeStyle where Self == BackgroundStyle {
    public static var background: BackgroundStyle { BackgroundStyle() }
}

public nonisolated struct TintShapeStyle: ShapeStyle {
    public nonisolated init() {}
}

extension ShapeStyle where Self == TintShapeStyle {
    public static var tint: TintShapeStyle { TintShapeStyle() }
}

public nonisolated struct SeparatorShapeStyle: ShapeStyle {
    public nonisolated init() {}
}

extension ShapeStyle where Self == SeparatorShapeStyle {
    public static var separator: SeparatorShapeStyle { SeparatorShapeStyle() }
}

public nonisolated struct Material: ShapeStyle {
    public static let ultraThinMaterial = Material()
    public static let thinMaterial = Material()
    public static let regularMaterial = Material()
    public static let thickMaterial = Material()
    public static let ultraThickMaterial = Material()
    public static let bar = Material()
}

extension ShapeStyle where Self == Material {
    public static var ultraThinMaterial: Material { .ultraThinMaterial }
    public static var thinMaterial: Material { .thinMaterial }
    public static var regularMaterial: Material { .regularMaterial }
    public static var thickMaterial: Material { .thickMaterial }
    public static var ultraThickMaterial: Material { .ultraThickMaterial }
    public static var bar: Material { .bar }
}

public nonisolated struct AnyShapeStyle: ShapeStyle {
    public nonisolated init<S: ShapeStyle>(_ style: S) {}
}

public nonisolated struct Gradient: Hashable, Sendable {
    public nonisolated init(colors: [Color]) {}
}

public nonisolated struct LinearGradient: ShapeStyle, _PrimitiveView {
    public nonisolated init(colors: [Color], startPoint: UnitPoint, endPoint: UnitPoint) {}
    public nonisolated init(gradient: Gradient, startPoint: UnitPoint, endPoint: UnitPoint) {}
}

extension ShapeStyle where Self == LinearGradient {
    public static func linearGradient(colors: [Color], startPoint: UnitPoint, endPoint: UnitPoint) -> LinearGradient {
        LinearGradient(colors: colors, startPoint: startPoint, endPoint: endPoint)
    }
}

// MARK: - Color

@frozen
public nonisolated struct Color: Hashable, Sendable, ShapeStyle, _PrimitiveView {
    let id: Int
    public nonisolated init(_ name: String, bundle: Bundle? = nil) { id = 0 }
    public nonisolated init(red: Double, green: Double, blue: Double, opacity: Double = 1) { id = 0 }
    public nonisolated init(white: Double, opacity: Double = 1) { id = 0 }
    public nonisolated init(hue: Double, saturation: Double, brightness: Double, opacity: Double = 1) { id = 0 }
    nonisolated init(id: Int) { self.id = id }

    public static let black = Color(id: 1)
    public static let white = Color(id: 2)
    public static let gray = Color(id: 3)
    public static let red = Color(id: 4)
    public static let green = Color(id: 5)
    public static let blue = Color(id: 6)
    public static let orange = Color(id: 7)
    public static let yellow = Color(id: 8)
    public static let pink = Color(id: 9)
    public static let purple = Color(id: 10)
    public static let primary = Color(id: 11)
    public static let secondary = Color(id: 12)
    public static let clear = Color(id: 13)
    public static let accentColor = Color(id: 14)
    public static let mint = Color(id: 15)
    public static let teal = Color(id: 16)
    public static let cyan = Color(id: 17)
    public static let indigo = Color(id: 18)
    public static let brown = Color(id: 19)

    public func opacity(_ opacity: Double) -> Color { self }
    public var gradient: AnyGradient { AnyGradient() }
}

public nonisolated struct AnyGradient: ShapeStyle, Hashable {
    nonisolated init() {}
}

extension ShapeStyle where Self == Color {
    public static var black: Color { .black }
    public static var white: Color { .white }
    public static var gray: Color { .gray }
    public static var red: Color { .red }
    public static var green: Color { .green }
    public static var blue: Color { .blue }
    public static var orange: Color { .orange }
    public static var yellow: Color { .yellow }
    public static var pink: Color { .pink }
    public static var purple: Color { .purple }
    public static var clear: Color { .clear }
    public static var mint: Color { .mint }
    public static var teal: Color { .teal }
    public static var cyan: Color { .cyan }
    public static var indigo: Color { .indigo }
    public static var brown: Color { .brown }
}

// MARK: - Shapes

public nonisolated struct FillStyle: Equatable, Sendable {
    public nonisolated init(eoFill: Bool = false, antialiased: Bool = true) {}
}

public nonisolated struct StrokeStyle: Equatable, Sendable {
    public nonisolated init(
        lineWidth: CGFloat = 1, lineCap: CGLineCap = .butt, lineJoin: CGLineJoin = .miter, miterLimit: CGFloat = 10,
        dash: [CGFloat] = [], dashPhase: CGFloat = 0
    ) {}
}

public enum CGLineCap: Int32, Sendable {
    case butt, round, square
}

public enum CGLineJoin: Int32, Sendable {
    case miter, round, bevel
}

public nonisolated struct Path: Equatable, Sendable {
    public nonisolated init() {}
    public nonisolated init(_ rect: CGRect) {}
    public nonisolated init(roundedRect rect: CGRect, cornerRadius: CGFloat, style: RoundedCornerStyle = .continuous) {}
    public nonisolated init(ellipseIn rect: CGRect) {}
}

public enum RoundedCornerStyle: Equatable, Sendable {
    case circular, continuous
}

/// A 2D shape: a view of its own, filled with the foreground style.
public protocol Shape: Sendable, _PrimitiveView {
    func path(in rect: CGRect) -> Path
}

public protocol InsettableShape: Shape {
    associatedtype InsetShape: InsettableShape
    func inset(by distance: CGFloat) -> InsetShape
}

extension Shape {
    public nonisolated func fill<S: ShapeStyle>(_ content: S = .foreground, style: FillStyle = FillStyle()) -> _ShapeView<Self, S>
    {
        _ShapeView()
    }
    public nonisolated func stroke<S: ShapeStyle>(_ content: S, lineWidth: CGFloat = 1) -> some View { _modified() }
    public nonisolated func stroke<S: ShapeStyle>(_ content: S, style: StrokeStyle) -> some View { _modified() }
    public nonisolated func stroke(lineWidth: CGFloat = 1) -> some Shape { self }
    public nonisolated func stroke(style: StrokeStyle) -> some Shape { self }
    public nonisolated func trim(from startFraction: CGFloat = 0, to endFraction: CGFloat = 1) -> some Shape { self }
}

extension InsettableShape {
    public nonisolated func strokeBorder<S: ShapeStyle>(
        _ content: S = .foreground, lineWidth: CGFloat = 1, antialiased: Bool = true
    )
        -> some View
    { _modified() }
    public nonisolated func strokeBorder<S: ShapeStyle>(_ content: S, style: StrokeStyle, antialiased: Bool = true) -> some View {
        _modified()
    }
    public nonisolated func strokeBorder(lineWidth: CGFloat = 1, antialiased: Bool = true) -> some View { _modified() }
}

/// A filled shape (`Capsule().fill(.tint)`): a view, and a shape that can still be stroked.
public nonisolated struct _ShapeView<Content: Shape, Style: ShapeStyle>: _PrimitiveView {
    nonisolated init() {}
    public nonisolated func stroke<S: ShapeStyle>(_ content: S, lineWidth: CGFloat = 1) -> some View { _modified() }
    public nonisolated func strokeBorder<S: ShapeStyle>(_ content: S, lineWidth: CGFloat = 1) -> some View { _modified() }
}

public nonisolated struct Capsule: InsettableShape {
    public var style: RoundedCornerStyle
    public nonisolated init(style: RoundedCornerStyle = .continuous) { self.style = style }
    public func path(in rect: CGRect) -> Path { Path() }
    public func inset(by distance: CGFloat) -> Capsule { self }
}

public nonisolated struct Circle: InsettableShape {
    public nonisolated init() {}
    public func path(in rect: CGRect) -> Path { Path() }
    public func inset(by distance: CGFloat) -> Circle { self }
}

public nonisolated struct Ellipse: InsettableShape {
    public nonisolated init() {}
    public func path(in rect: CGRect) -> Path { Path() }
    public func inset(by distance: CGFloat) -> Ellipse { self }
}

public nonisolated struct Rectangle: InsettableShape {
    public nonisolated init() {}
    public func path(in rect: CGRect) -> Path { Path() }
    public func inset(by distance: CGFloat) -> Rectangle { self }
}

public nonisolated struct RoundedRectangle: InsettableShape {
    public var cornerSize: CGSize
    public var style: RoundedCornerStyle
    public nonisolated init(cornerRadius: CGFloat, style: RoundedCornerStyle = .continuous) {
        self.cornerSize = CGSize(width: cornerRadius, height: cornerRadius)
        self.style = style
    }
    public nonisolated init(cornerSize: CGSize, style: RoundedCornerStyle = .continuous) {
        self.cornerSize = cornerSize
        self.style = style
    }
    public func path(in rect: CGRect) -> Path { Path() }
    public func inset(by distance: CGFloat) -> RoundedRectangle { self }
}

public nonisolated struct UnevenRoundedRectangle: InsettableShape {
    public nonisolated init(
        topLeadingRadius: CGFloat = 0, bottomLeadingRadius: CGFloat = 0, bottomTrailingRadius: CGFloat = 0,
        topTrailingRadius: CGFloat = 0, style: RoundedCornerStyle = .continuous
    ) {}
    public func path(in rect: CGRect) -> Path { Path() }
    public func inset(by distance: CGFloat) -> UnevenRoundedRectangle { self }
}

public nonisolated struct ContainerRelativeShape: InsettableShape {
    public nonisolated init() {}
    public func path(in rect: CGRect) -> Path { Path() }
    public func inset(by distance: CGFloat) -> ContainerRelativeShape { self }
}

extension Shape where Self == Capsule {
    public static var capsule: Capsule { Capsule() }
    public static func capsule(style: RoundedCornerStyle) -> Capsule { Capsule(style: style) }
}

extension Shape where Self == Circle {
    public static var circle: Circle { Circle() }
}

extension Shape where Self == Ellipse {
    public static var ellipse: Ellipse { Ellipse() }
}

extension Shape where Self == Rectangle {
    public static var rect: Rectangle { Rectangle() }
}

extension Shape where Self == RoundedRectangle {
    public static func rect(cornerRadius: CGFloat, style: RoundedCornerStyle = .continuous) -> RoundedRectangle {
        RoundedRectangle(cornerRadius: cornerRadius, style: style)
    }
}

extension Shape where Self == ContainerRelativeShape {
    public static var containerRelative: ContainerRelativeShape { ContainerRelativeShape() }
}
