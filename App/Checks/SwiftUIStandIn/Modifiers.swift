// SwiftUI stand-in (never shipped): view modifiers — layout, style, text, input, lifecycle,
// accessibility. Closure attributes follow Apple's SDK: `task` takes a `sending @isolated(any)`
// closure (it runs on the view's main actor), `refreshable` a `@Sendable` one.

// MARK: - Layout and drawing

extension View {
    public nonisolated func padding(_ insets: EdgeInsets) -> some View { _modified() }
    public nonisolated func padding(_ edges: Edge.Set = .all, _ length: CGFloat? = nil) -> some View { _modified() }
    public nonisolated func padding(_ length: CGFloat) -> some View { _modified() }

    public nonisolated func frame(width: CGFloat? = nil, height: CGFloat? = nil, alignment: Alignment = .center) -> some View {
        _modified()
    }
    public nonisolated func frame(
        minWidth: CGFloat? = nil, idealWidth: CGFloat? = nil, maxWidth: CGFloat? = nil, minHeight: CGFloat? = nil,
        idealHeight: CGFloat? = nil, maxHeight: CGFloat? = nil, alignment: Alignment = .center
    ) -> some View { _modified() }
    public nonisolated func fixedSize() -> some View { _modified() }
    public nonisolated func fixedSize(horizontal: Bool, vertical: Bool) -> some View { _modified() }
    public nonisolated func layoutPriority(_ value: Double) -> some View { _modified() }
    public nonisolated func aspectRatio(_ aspectRatio: CGFloat? = nil, contentMode: ContentMode) -> some View { _modified() }
    public nonisolated func scaledToFit() -> some View { _modified() }
    public nonisolated func scaledToFill() -> some View { _modified() }
    public nonisolated func offset(x: CGFloat = 0, y: CGFloat = 0) -> some View { _modified() }
    public nonisolated func offset(_ offset: CGSize) -> some View { _modified() }
    public nonisolated func position(x: CGFloat = 0, y: CGFloat = 0) -> some View { _modified() }
    public nonisolated func zIndex(_ value: Double) -> some View { _modified() }
    public nonisolated func ignoresSafeArea(_ regions: SafeAreaRegions = .all, edges: Edge.Set = .all) -> some View {
        _modified()
    }
    public nonisolated func safeAreaInset<V: View>(
        edge: VerticalEdge, alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> V
    ) -> some View { _modified() }
    public nonisolated func safeAreaPadding(_ edges: Edge.Set = .all, _ length: CGFloat? = nil) -> some View { _modified() }
    public nonisolated func containerRelativeFrame(_ axes: Axis.Set, alignment: Alignment = .center) -> some View { _modified() }
    /// Newer than the deployment target: App/Checks/lint-availability.py requires `#available`
    /// around every use (the self-test's AvailabilityUses.swift).
    @available(iOS 26.0, *)
    public nonisolated func backgroundExtensionEffect() -> some View { _modified() }

    public nonisolated func background<S: ShapeStyle>(_ style: S, ignoresSafeAreaEdges edges: Edge.Set = .all) -> some View {
        _modified()
    }
    public nonisolated func background<V: View>(alignment: Alignment = .center, @ViewBuilder content: () -> V) -> some View {
        _modified()
    }
    public nonisolated func background<S: ShapeStyle, T: Shape>(
        _ style: S, in shape: T, fillStyle: FillStyle = FillStyle()
    )
        -> some View
    { _modified() }
    public nonisolated func background<T: Shape>(in shape: T, fillStyle: FillStyle = FillStyle()) -> some View { _modified() }
    /// Soft-deprecated on Apple platforms (no warning); kept because `.background(Capsule().fill(...))` is common.
    @_disfavoredOverload
    public nonisolated func background<Background: View>(_ background: Background, alignment: Alignment = .center) -> some View {
        _modified()
    }
    public nonisolated func overlay<V: View>(alignment: Alignment = .center, @ViewBuilder content: () -> V) -> some View {
        _modified()
    }
    public nonisolated func overlay<S: ShapeStyle>(_ style: S, ignoresSafeAreaEdges edges: Edge.Set = .all) -> some View {
        _modified()
    }
    public nonisolated func overlay<S: ShapeStyle, T: Shape>(
        _ style: S, in shape: T, fillStyle: FillStyle = FillStyle()
    ) -> some View {
        _modified()
    }
    @_disfavoredOverload
    public nonisolated func overlay<Overlay: View>(_ overlay: Overlay, alignment: Alignment = .center) -> some View {
        _modified()
    }
    public nonisolated func clipShape<S: Shape>(_ shape: S, style: FillStyle = FillStyle()) -> some View { _modified() }
    public nonisolated func clipped(antialiased: Bool = false) -> some View { _modified() }
    public nonisolated func cornerRadius(_ radius: CGFloat, antialiased: Bool = true) -> some View { _modified() }
    public nonisolated func contentShape<S: Shape>(_ shape: S, eoFill: Bool = false) -> some View { _modified() }
    public nonisolated func contentShape<S: Shape>(_ kind: ContentShapeKinds, _ shape: S, eoFill: Bool = false) -> some View {
        _modified()
    }
    public nonisolated func shadow(
        color: Color = Color(white: 0, opacity: 0.33), radius: CGFloat, x: CGFloat = 0, y: CGFloat = 0
    )
        -> some View
    { _modified() }
    public nonisolated func border<S: ShapeStyle>(_ content: S, width: CGFloat = 1) -> some View { _modified() }
    public nonisolated func opacity(_ opacity: Double) -> some View { _modified() }
    public nonisolated func hidden() -> some View { _modified() }
    public nonisolated func blur(radius: CGFloat, opaque: Bool = false) -> some View { _modified() }
    public nonisolated func scaleEffect(_ s: CGFloat, anchor: UnitPoint = .center) -> some View { _modified() }
    public nonisolated func scaleEffect(x: CGFloat = 1, y: CGFloat = 1, anchor: UnitPoint = .center) -> some View { _modified() }
    public nonisolated func rotationEffect(_ angle: Angle, anchor: UnitPoint = .center) -> some View { _modified() }
    public nonisolated func mask<Mask: View>(alignment: Alignment = .center, @ViewBuilder _ mask: () -> Mask) -> some View {
        _modified()
    }
    public nonisolated func drawingGroup(opaque: Bool = false) -> some View { _modified() }
    public nonisolated func compositingGroup() -> some View { _modified() }
    public nonisolated func id<ID: Hashable>(_ id: ID) -> some View { _modified() }
    public nonisolated func redacted(reason: RedactionReasons) -> some View { _modified() }
    public nonisolated func unredacted() -> some View { _modified() }
    public nonisolated func privacySensitive(_ sensitive: Bool = true) -> some View { _modified() }
}

public nonisolated struct SafeAreaRegions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let container = SafeAreaRegions(rawValue: 1)
    public static let keyboard = SafeAreaRegions(rawValue: 2)
    public static let all: SafeAreaRegions = [.container, .keyboard]
}

public nonisolated struct ContentShapeKinds: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let interaction = ContentShapeKinds(rawValue: 1)
    public static let dragPreview = ContentShapeKinds(rawValue: 2)
    public static let contextMenuPreview = ContentShapeKinds(rawValue: 4)
    public static let accessibility = ContentShapeKinds(rawValue: 8)
}

public nonisolated struct RedactionReasons: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let placeholder = RedactionReasons(rawValue: 1)
    public static let privacy = RedactionReasons(rawValue: 2)
}

// MARK: - Style

extension View {
    public nonisolated func font(_ font: Font?) -> some View { _modified() }
    public nonisolated func fontWeight(_ weight: Font.Weight?) -> some View { _modified() }
    public nonisolated func fontDesign(_ design: Font.Design?) -> some View { _modified() }
    public nonisolated func fontWidth(_ width: Font.Width?) -> some View { _modified() }
    public nonisolated func bold(_ isActive: Bool = true) -> some View { _modified() }
    public nonisolated func italic(_ isActive: Bool = true) -> some View { _modified() }
    public nonisolated func monospaced(_ isActive: Bool = true) -> some View { _modified() }
    public nonisolated func monospacedDigit() -> some View { _modified() }
    public nonisolated func foregroundStyle<S: ShapeStyle>(_ style: S) -> some View { _modified() }
    public nonisolated func foregroundStyle<S1: ShapeStyle, S2: ShapeStyle>(_ primary: S1, _ secondary: S2) -> some View {
        _modified()
    }
    public nonisolated func foregroundStyle<S1: ShapeStyle, S2: ShapeStyle, S3: ShapeStyle>(
        _ primary: S1, _ secondary: S2, _ tertiary: S3
    ) -> some View { _modified() }
    /// Soft-deprecated on iOS (no warning); `foregroundStyle(_:)` is the current spelling.
    public nonisolated func foregroundColor(_ color: Color?) -> some View { _modified() }
    public nonisolated func tint(_ tint: Color?) -> some View { _modified() }
    @_disfavoredOverload
    public nonisolated func tint<S: ShapeStyle>(_ tint: S?) -> some View { _modified() }
    public nonisolated func backgroundStyle<S: ShapeStyle>(_ style: S) -> some View { _modified() }
    public nonisolated func preferredColorScheme(_ colorScheme: ColorScheme?) -> some View { _modified() }
    public nonisolated func symbolRenderingMode(_ mode: SymbolRenderingMode?) -> some View { _modified() }
    public nonisolated func symbolVariant(_ variant: SymbolVariants) -> some View { _modified() }
    public nonisolated func imageScale(_ scale: Image.Scale) -> some View { _modified() }
    public nonisolated func buttonStyle<S: PrimitiveButtonStyle>(_ style: S) -> some View { _modified() }
    public nonisolated func buttonStyle<S: ButtonStyle>(_ style: S) -> some View { _modified() }
    public nonisolated func buttonBorderShape(_ shape: ButtonBorderShape) -> some View { _modified() }
    public nonisolated func controlSize(_ controlSize: ControlSize) -> some View { _modified() }
    public nonisolated func labelStyle<S: LabelStyle>(_ style: S) -> some View { _modified() }
    public nonisolated func labelsHidden() -> some View { _modified() }
    public nonisolated func toggleStyle<S: ToggleStyle>(_ style: S) -> some View { _modified() }
    public nonisolated func pickerStyle<S: PickerStyle>(_ style: S) -> some View { _modified() }
    public nonisolated func progressViewStyle<S: ProgressViewStyle>(_ style: S) -> some View { _modified() }
    public nonisolated func textFieldStyle<S: TextFieldStyle>(_ style: S) -> some View { _modified() }
    public nonisolated func listStyle<S: ListStyle>(_ style: S) -> some View { _modified() }
    public nonisolated func listRowBackground<V: View>(_ view: V?) -> some View { _modified() }
    public nonisolated func listRowInsets(_ insets: EdgeInsets?) -> some View { _modified() }
    public nonisolated func listRowSeparator(_ visibility: Visibility, edges: VerticalEdge.Set = .all) -> some View {
        _modified()
    }
    public nonisolated func listSectionSpacing(_ spacing: CGFloat) -> some View { _modified() }
    public nonisolated func headerProminence(_ prominence: Prominence) -> some View { _modified() }
    public nonisolated func scrollContentBackground(_ visibility: Visibility) -> some View { _modified() }
    public nonisolated func scrollIndicators(
        _ visibility: ScrollIndicatorVisibility, axes: Axis.Set = [.vertical, .horizontal]
    )
        -> some View
    { _modified() }
    public nonisolated func scrollDismissesKeyboard(_ mode: ScrollDismissesKeyboardMode) -> some View { _modified() }
    public nonisolated func scrollDisabled(_ disabled: Bool) -> some View { _modified() }
    public nonisolated func disabled(_ disabled: Bool) -> some View { _modified() }
    public nonisolated func allowsHitTesting(_ enabled: Bool) -> some View { _modified() }
    public nonisolated func animation<V: Equatable>(_ animation: Animation?, value: V) -> some View { _modified() }
    public nonisolated func transition(_ t: AnyTransition) -> some View { _modified() }
    public nonisolated func contentTransition(_ transition: ContentTransition) -> some View { _modified() }
    public nonisolated func sensoryFeedback<T: Equatable>(_ feedback: SensoryFeedback, trigger: T) -> some View { _modified() }
    public nonisolated func sensoryFeedback<T: Equatable>(
        _ feedback: SensoryFeedback, trigger: T, condition: @escaping (_ oldValue: T, _ newValue: T) -> Bool
    ) -> some View { _modified() }
}

extension VerticalEdge {
    @frozen
    public nonisolated struct Set: OptionSet, Sendable {
        public let rawValue: Int8
        public init(rawValue: Int8) { self.rawValue = rawValue }
        public static let top = Set(rawValue: 1)
        public static let bottom = Set(rawValue: 2)
        public static let all: Set = [.top, .bottom]
    }
}

public enum Prominence: Hashable, Sendable {
    case standard, increased
}

public nonisolated struct ScrollIndicatorVisibility: Sendable {
    public static let automatic = ScrollIndicatorVisibility()
    public static let visible = ScrollIndicatorVisibility()
    public static let hidden = ScrollIndicatorVisibility()
    public static let never = ScrollIndicatorVisibility()
}

public nonisolated struct ScrollDismissesKeyboardMode: Sendable {
    public static let automatic = ScrollDismissesKeyboardMode()
    public static let immediately = ScrollDismissesKeyboardMode()
    public static let interactively = ScrollDismissesKeyboardMode()
    public static let never = ScrollDismissesKeyboardMode()
}

@MainActor @preconcurrency
public protocol ListStyle {}

public nonisolated struct InsetGroupedListStyle: ListStyle {
    public nonisolated init() {}
}

public nonisolated struct GroupedListStyle: ListStyle {
    public nonisolated init() {}
}

public nonisolated struct PlainListStyle: ListStyle {
    public nonisolated init() {}
}

public nonisolated struct InsetListStyle: ListStyle {
    public nonisolated init() {}
}

public nonisolated struct SidebarListStyle: ListStyle {
    public nonisolated init() {}
}

public nonisolated struct DefaultListStyle: ListStyle {
    public nonisolated init() {}
}

extension ListStyle where Self == InsetGroupedListStyle {
    public static var insetGrouped: InsetGroupedListStyle { InsetGroupedListStyle() }
}

extension ListStyle where Self == GroupedListStyle {
    public static var grouped: GroupedListStyle { GroupedListStyle() }
}

extension ListStyle where Self == PlainListStyle {
    public static var plain: PlainListStyle { PlainListStyle() }
}

extension ListStyle where Self == InsetListStyle {
    public static var inset: InsetListStyle { InsetListStyle() }
}

extension ListStyle where Self == SidebarListStyle {
    public static var sidebar: SidebarListStyle { SidebarListStyle() }
}

extension ListStyle where Self == DefaultListStyle {
    public static var automatic: DefaultListStyle { DefaultListStyle() }
}

public nonisolated struct Animation: Equatable, Sendable {
    let id: Int
    public static let `default` = Animation(id: 0)
    public static let linear = Animation(id: 1)
    public static let easeIn = Animation(id: 2)
    public static let easeOut = Animation(id: 3)
    public static let easeInOut = Animation(id: 4)
    public static let spring = Animation(id: 5)
    public static let bouncy = Animation(id: 6)
    public static let smooth = Animation(id: 7)
    public static let snappy = Animation(id: 8)
    public static func linear(duration: TimeInterval) -> Animation { .linear }
    public static func easeIn(duration: TimeInterval) -> Animation { .easeIn }
    public static func easeOut(duration: TimeInterval) -> Animation { .easeOut }
    public static func easeInOut(duration: TimeInterval) -> Animation { .easeInOut }
    public static func spring(duration: TimeInterval = 0.5, bounce: Double = 0, blendDuration: Double = 0) -> Animation {
        .spring
    }
    public func delay(_ delay: TimeInterval) -> Animation { self }
    public func speed(_ speed: Double) -> Animation { self }
    public func repeatForever(autoreverses: Bool = true) -> Animation { self }
}

public nonisolated struct AnyTransition: Sendable {
    public static let opacity = AnyTransition()
    public static let scale = AnyTransition()
    public static let identity = AnyTransition()
    public static let slide = AnyTransition()
    public static func move(edge: Edge) -> AnyTransition { AnyTransition() }
    public static func push(from edge: Edge) -> AnyTransition { AnyTransition() }
    public func combined(with other: AnyTransition) -> AnyTransition { self }
    public func animation(_ animation: Animation?) -> AnyTransition { self }
    public static func asymmetric(insertion: AnyTransition, removal: AnyTransition) -> AnyTransition { AnyTransition() }
}

public nonisolated struct ContentTransition: Equatable, Sendable {
    public static let identity = ContentTransition()
    public static let opacity = ContentTransition()
    public static let interpolate = ContentTransition()
    public static func numericText(countsDown: Bool = false) -> ContentTransition { ContentTransition() }
    public static func numericText(value: Double) -> ContentTransition { ContentTransition() }
    public static func symbolEffect() -> ContentTransition { ContentTransition() }
}

public nonisolated struct SensoryFeedback: Equatable, Sendable {
    let id: Int
    public static let success = SensoryFeedback(id: 0)
    public static let warning = SensoryFeedback(id: 1)
    public static let error = SensoryFeedback(id: 2)
    public static let selection = SensoryFeedback(id: 3)
    public static let increase = SensoryFeedback(id: 4)
    public static let decrease = SensoryFeedback(id: 5)
    public static let start = SensoryFeedback(id: 6)
    public static let stop = SensoryFeedback(id: 7)
    public static let alignment = SensoryFeedback(id: 8)
    public static let levelChange = SensoryFeedback(id: 9)
    public static let impact = SensoryFeedback(id: 10)
    public static func impact(weight: Weight = .medium, intensity: Double = 1.0) -> SensoryFeedback { .impact }
    public static func impact(flexibility: Flexibility, intensity: Double = 1.0) -> SensoryFeedback { .impact }
    public nonisolated struct Weight: Equatable, Sendable {
        public static let light = Weight()
        public static let medium = Weight()
        public static let heavy = Weight()
    }
    public nonisolated struct Flexibility: Equatable, Sendable {
        public static let rigid = Flexibility()
        public static let solid = Flexibility()
        public static let soft = Flexibility()
    }
}

// MARK: - Text layout

extension View {
    public nonisolated func lineLimit(_ number: Int?) -> some View { _modified() }
    public nonisolated func lineLimit(_ limit: Int, reservesSpace: Bool) -> some View { _modified() }
    public nonisolated func lineLimit<R: RangeExpression>(_ limit: R) -> some View where R.Bound == Int { _modified() }
    public nonisolated func multilineTextAlignment(_ alignment: TextAlignment) -> some View { _modified() }
    public nonisolated func minimumScaleFactor(_ factor: CGFloat) -> some View { _modified() }
    public nonisolated func truncationMode(_ mode: Text.TruncationMode) -> some View { _modified() }
    public nonisolated func textCase(_ textCase: Text.Case?) -> some View { _modified() }
    public nonisolated func textSelection(_ selectability: TextSelectability) -> some View { _modified() }
    public nonisolated func lineSpacing(_ lineSpacing: CGFloat) -> some View { _modified() }
    public nonisolated func dynamicTypeSize(_ size: DynamicTypeSize) -> some View { _modified() }
    public nonisolated func dynamicTypeSize<T: RangeExpression>(_ range: T) -> some View where T.Bound == DynamicTypeSize {
        _modified()
    }
}

// MARK: - Text input

extension View {
    public nonisolated func submitLabel(_ submitLabel: SubmitLabel) -> some View { _modified() }
    public nonisolated func onSubmit(of triggers: SubmitTriggers = .text, _ action: @escaping () -> Void) -> some View {
        _modified()
    }
    public nonisolated func keyboardType(_ type: UIKeyboardType) -> some View { _modified() }
    public nonisolated func textContentType(_ textContentType: UITextContentType?) -> some View { _modified() }
    public nonisolated func textInputAutocapitalization(_ autocapitalization: TextInputAutocapitalization?) -> some View {
        _modified()
    }
    public nonisolated func autocorrectionDisabled(_ disable: Bool = true) -> some View { _modified() }
    public nonisolated func keyboardShortcut(_ shortcut: KeyboardShortcut) -> some View { _modified() }
    public nonisolated func searchable(text: Binding<String>, prompt: Text? = nil) -> some View { _modified() }
    public nonisolated func searchable(text: Binding<String>, prompt: LocalizedStringKey) -> some View { _modified() }
}

public nonisolated struct KeyboardShortcut: Hashable, Sendable {
    public static let defaultAction = KeyboardShortcut()
    public static let cancelAction = KeyboardShortcut()
}

// MARK: - Lifecycle and events

extension View {
    public nonisolated func onAppear(perform action: (() -> Void)? = nil) -> some View { _modified() }
    public nonisolated func onDisappear(perform action: (() -> Void)? = nil) -> some View { _modified() }
    public nonisolated func task(
        priority: TaskPriority = .userInitiated, @_inheritActorContext _ action: sending @escaping @isolated(any) () async -> Void
    )
        -> some View
    { _modified() }
    public nonisolated func task<T: Equatable>(
        id value: T, priority: TaskPriority = .userInitiated,
        @_inheritActorContext _ action: sending @escaping @isolated(any) () async -> Void
    ) -> some View { _modified() }
    public nonisolated func onChange<V: Equatable>(
        of value: V, initial: Bool = false, _ action: @escaping (_ oldValue: V, _ newValue: V) -> Void
    ) -> some View { _modified() }
    public nonisolated func onChange<V: Equatable>(
        of value: V, initial: Bool = false, _ action: @escaping () -> Void
    ) -> some View {
        _modified()
    }
    public nonisolated func refreshable(action: @escaping @Sendable () async -> Void) -> some View { _modified() }
    public nonisolated func onOpenURL(perform action: @escaping (URL) -> Void) -> some View { _modified() }
    public nonisolated func onTapGesture(count: Int = 1, perform action: @escaping () -> Void) -> some View { _modified() }
    public nonisolated func onLongPressGesture(minimumDuration: Double = 0.5, perform action: @escaping () -> Void) -> some View {
        _modified()
    }
    public nonisolated func gesture<T: Gesture>(_ gesture: T, including mask: GestureMask = .all) -> some View { _modified() }
    public nonisolated func simultaneousGesture<T: Gesture>(_ gesture: T, including mask: GestureMask = .all) -> some View {
        _modified()
    }
    public nonisolated func highPriorityGesture<T: Gesture>(_ gesture: T, including mask: GestureMask = .all) -> some View {
        _modified()
    }
    public nonisolated func contextMenu<MenuItems: View>(@ViewBuilder menuItems: () -> MenuItems) -> some View { _modified() }
    public nonisolated func swipeActions<T: View>(
        edge: HorizontalEdge = .trailing, allowsFullSwipe: Bool = true, @ViewBuilder content: () -> T
    ) -> some View { _modified() }
}

// MARK: - Gestures

@MainActor @preconcurrency
public protocol Gesture<Value> {
    associatedtype Value
    associatedtype Body: Gesture
    var body: Body { get }
}

public protocol _PrimitiveGesture: Gesture where Body == Never {}

extension _PrimitiveGesture {
    public nonisolated var body: Never { return standIn() }
}

extension Never: Gesture {
    public typealias Value = Never
}

public nonisolated struct GestureMask: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let none = GestureMask([])
    public static let gesture = GestureMask(rawValue: 1)
    public static let subviews = GestureMask(rawValue: 2)
    public static let all: GestureMask = [.gesture, .subviews]
}

public nonisolated struct TapGesture: _PrimitiveGesture {
    public typealias Value = Void
    public var count: Int
    public nonisolated init(count: Int = 1) { self.count = count }
}

public nonisolated struct LongPressGesture: _PrimitiveGesture {
    public typealias Value = Bool
    public nonisolated init(minimumDuration: Double = 0.5, maximumDistance: CGFloat = 10) {}
}

public nonisolated struct DragGesture: _PrimitiveGesture {
    public nonisolated struct Value: Equatable, Sendable {
        public var translation: CGSize { standIn() }
        public var location: CGPoint { standIn() }
        public var startLocation: CGPoint { standIn() }
    }
    public nonisolated init(minimumDistance: CGFloat = 10, coordinateSpace: CoordinateSpace = .local) {}
}

public nonisolated struct _EndedGesture<Content: Gesture>: _PrimitiveGesture {
    public typealias Value = Content.Value
    nonisolated init() {}
}

public nonisolated struct _ChangedGesture<Content: Gesture>: _PrimitiveGesture {
    public typealias Value = Content.Value
    nonisolated init() {}
}

extension Gesture {
    public nonisolated func onEnded(_ action: @escaping (Value) -> Void) -> _EndedGesture<Self> { _EndedGesture() }
}

extension Gesture where Value: Equatable {
    public nonisolated func onChanged(_ action: @escaping (Value) -> Void) -> _ChangedGesture<Self> { _ChangedGesture() }
}

// MARK: - Spatial tap

/// A tap that reports where it happened.
public nonisolated struct SpatialTapGesture: _PrimitiveGesture {
    public struct Value: Equatable, Sendable {
        public var location: CGPoint
    }

    public var count: Int

    public nonisolated init(count: Int = 1, coordinateSpace: some CoordinateSpaceProtocol = .local) {
        self.count = count
    }
}

// MARK: - Accessibility

public nonisolated struct AccessibilityTraits: SetAlgebra, Sendable {
    private var bits: Set<Int>
    public init() { bits = [] }
    init(_ bit: Int) { bits = [bit] }
    public static let isButton = AccessibilityTraits(0)
    public static let isHeader = AccessibilityTraits(1)
    public static let isSelected = AccessibilityTraits(2)
    public static let isLink = AccessibilityTraits(3)
    public static let isSearchField = AccessibilityTraits(4)
    public static let isImage = AccessibilityTraits(5)
    public static let playsSound = AccessibilityTraits(6)
    public static let isKeyboardKey = AccessibilityTraits(7)
    public static let isStaticText = AccessibilityTraits(8)
    public static let isSummaryElement = AccessibilityTraits(9)
    public static let updatesFrequently = AccessibilityTraits(10)
    public static let startsMediaSession = AccessibilityTraits(11)
    public static let allowsDirectInteraction = AccessibilityTraits(12)
    public static let causesPageTurn = AccessibilityTraits(13)
    public static let isModal = AccessibilityTraits(14)
    public static let isToggle = AccessibilityTraits(15)
    public func union(_ other: Self) -> Self {
        var s = self
        s.bits.formUnion(other.bits)
        return s
    }
    public func intersection(_ other: Self) -> Self {
        var s = self
        s.bits.formIntersection(other.bits)
        return s
    }
    public func symmetricDifference(_ other: Self) -> Self {
        var s = self
        s.bits.formSymmetricDifference(other.bits)
        return s
    }
    public func contains(_ member: Self) -> Bool { member.bits.isSubset(of: bits) }
    public mutating func insert(_ newMember: Self) -> (inserted: Bool, memberAfterInsert: Self) {
        let had = contains(newMember)
        bits.formUnion(newMember.bits)
        return (!had, newMember)
    }
    public mutating func remove(_ member: Self) -> Self? {
        bits.subtract(member.bits)
        return member
    }
    public mutating func update(with newMember: Self) -> Self? {
        bits.formUnion(newMember.bits)
        return newMember
    }
    public mutating func formUnion(_ other: Self) { bits.formUnion(other.bits) }
    public mutating func formIntersection(_ other: Self) { bits.formIntersection(other.bits) }
    public mutating func formSymmetricDifference(_ other: Self) { bits.formSymmetricDifference(other.bits) }
}

public nonisolated struct AccessibilityChildBehavior: Hashable, Sendable {
    let id: Int
    public static let ignore = AccessibilityChildBehavior(id: 0)
    public static let contain = AccessibilityChildBehavior(id: 1)
    public static let combine = AccessibilityChildBehavior(id: 2)
}

public nonisolated struct AccessibilityActionKind: Equatable, Sendable {
    public static let `default` = AccessibilityActionKind()
    public static let escape = AccessibilityActionKind()
    public static let magicTap = AccessibilityActionKind()
    public nonisolated init(named name: Text) {}
    nonisolated init() {}
}

/// Apple declares these in the Accessibility framework, which SwiftUI re-exports: a view posts
/// an announcement with `AccessibilityNotification.Announcement(text).post()`.
@available(iOS 17.0, macOS 14.0, *)
public protocol AccessibilityNotifications {}

@available(iOS 17.0, macOS 14.0, *)
extension AccessibilityNotifications {
    /// Hands the notification to VoiceOver (the stand-in posts nothing).
    public func post() {}
}

@available(iOS 17.0, macOS 14.0, *)
public enum AccessibilityNotification {
    public struct Announcement: AccessibilityNotifications {
        public init(_ announcement: String) {}
        public init(_ announcement: AttributedString) {}
    }
}

public enum AccessibilityAdjustmentDirection: Hashable, Sendable {
    case increment, decrement
}

extension View {
    public nonisolated func accessibilityLabel(_ label: Text) -> some View { _modified() }
    public nonisolated func accessibilityLabel(_ labelKey: LocalizedStringKey) -> some View { _modified() }
    @_disfavoredOverload
    public nonisolated func accessibilityLabel<S: StringProtocol>(_ label: S) -> some View { _modified() }
    public nonisolated func accessibilityValue(_ valueDescription: Text) -> some View { _modified() }
    public nonisolated func accessibilityValue(_ valueKey: LocalizedStringKey) -> some View { _modified() }
    @_disfavoredOverload
    public nonisolated func accessibilityValue<S: StringProtocol>(_ value: S) -> some View { _modified() }
    public nonisolated func accessibilityHint(_ hint: Text) -> some View { _modified() }
    public nonisolated func accessibilityHint(_ hintKey: LocalizedStringKey) -> some View { _modified() }
    @_disfavoredOverload
    public nonisolated func accessibilityHint<S: StringProtocol>(_ hint: S) -> some View { _modified() }
    public nonisolated func accessibilityAddTraits(_ traits: AccessibilityTraits) -> some View { _modified() }
    public nonisolated func accessibilityRemoveTraits(_ traits: AccessibilityTraits) -> some View { _modified() }
    public nonisolated func accessibilityElement(children: AccessibilityChildBehavior = .ignore) -> some View { _modified() }
    public nonisolated func accessibilityHidden(_ hidden: Bool) -> some View { _modified() }
    public nonisolated func accessibilityIdentifier(_ identifier: String) -> some View { _modified() }
    public nonisolated func accessibilitySortPriority(_ sortPriority: Double) -> some View { _modified() }
    public nonisolated func accessibilityInputLabels(_ inputLabels: [Text]) -> some View { _modified() }
    @_disfavoredOverload
    public nonisolated func accessibilityInputLabels<S: StringProtocol>(_ inputLabels: [S]) -> some View { _modified() }
    public nonisolated func accessibilityAction(
        _ actionKind: AccessibilityActionKind = .default, _ handler: @escaping () -> Void
    ) -> some View { _modified() }
    public nonisolated func accessibilityAction(named nameKey: LocalizedStringKey, _ handler: @escaping () -> Void) -> some View {
        _modified()
    }
    public nonisolated func accessibilityAdjustableAction(
        _ handler: @escaping (AccessibilityAdjustmentDirection) -> Void
    ) -> some View {
        _modified()
    }
    public nonisolated func accessibilityRepresentation<V: View>(@ViewBuilder representation: () -> V) -> some View {
        _modified()
    }
    public nonisolated func accessibilityShowsLargeContentViewer() -> some View { _modified() }
}
