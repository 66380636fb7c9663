// SwiftUI stand-in (never shipped): stacks, grids, lists, forms, scrolling, geometry, preferences
// and coordinate spaces (the keyboard-dismissal modifier collects text-field frames through a
// preference key in a named coordinate space).

// MARK: - Geometry values

@frozen
public nonisolated struct Alignment: Equatable, Sendable {
    public var horizontal: HorizontalAlignment
    public var vertical: VerticalAlignment
    public nonisolated init(horizontal: HorizontalAlignment, vertical: VerticalAlignment) {
        self.horizontal = horizontal
        self.vertical = vertical
    }
    public static let center = Alignment(horizontal: .center, vertical: .center)
    public static let leading = Alignment(horizontal: .leading, vertical: .center)
    public static let trailing = Alignment(horizontal: .trailing, vertical: .center)
    public static let top = Alignment(horizontal: .center, vertical: .top)
    public static let bottom = Alignment(horizontal: .center, vertical: .bottom)
    public static let topLeading = Alignment(horizontal: .leading, vertical: .top)
    public static let topTrailing = Alignment(horizontal: .trailing, vertical: .top)
    public static let bottomLeading = Alignment(horizontal: .leading, vertical: .bottom)
    public static let bottomTrailing = Alignment(horizontal: .trailing, vertical: .bottom)
    public static let leadingFirstTextBaseline = Alignment(horizontal: .leading, vertical: .firstTextBaseline)
}

@frozen
public nonisolated struct HorizontalAlignment: Equatable, Sendable {
    let id: Int
    public static let leading = HorizontalAlignment(id: 0)
    public static let center = HorizontalAlignment(id: 1)
    public static let trailing = HorizontalAlignment(id: 2)
    public static let listRowSeparatorLeading = HorizontalAlignment(id: 3)
    public static let listRowSeparatorTrailing = HorizontalAlignment(id: 4)
}

@frozen
public nonisolated struct VerticalAlignment: Equatable, Sendable {
    let id: Int
    public static let top = VerticalAlignment(id: 0)
    public static let center = VerticalAlignment(id: 1)
    public static let bottom = VerticalAlignment(id: 2)
    public static let firstTextBaseline = VerticalAlignment(id: 3)
    public static let lastTextBaseline = VerticalAlignment(id: 4)
}

@frozen
public enum Edge: Int8, CaseIterable, Hashable, Sendable {
    case top, leading, bottom, trailing

    @frozen
    public nonisolated struct Set: OptionSet, Sendable {
        public let rawValue: Int8
        public init(rawValue: Int8) { self.rawValue = rawValue }
        public init(_ e: Edge) { self.rawValue = 1 << e.rawValue }
        public static let top = Set(.top)
        public static let leading = Set(.leading)
        public static let bottom = Set(.bottom)
        public static let trailing = Set(.trailing)
        public static let all: Set = [.top, .leading, .bottom, .trailing]
        public static let horizontal: Set = [.leading, .trailing]
        public static let vertical: Set = [.top, .bottom]
    }
}

@frozen
public enum HorizontalEdge: Int8, CaseIterable, Hashable, Sendable {
    case leading, trailing
}

@frozen
public enum VerticalEdge: Int8, CaseIterable, Hashable, Sendable {
    case top, bottom
}

@frozen
public nonisolated struct EdgeInsets: Equatable, Sendable {
    public var top: CGFloat
    public var leading: CGFloat
    public var bottom: CGFloat
    public var trailing: CGFloat
    public nonisolated init(top: CGFloat = 0, leading: CGFloat = 0, bottom: CGFloat = 0, trailing: CGFloat = 0) {
        self.top = top
        self.leading = leading
        self.bottom = bottom
        self.trailing = trailing
    }
}

@frozen
public enum Axis: Int8, CaseIterable, Hashable, Sendable {
    case horizontal, vertical

    @frozen
    public nonisolated struct Set: OptionSet, Sendable {
        public let rawValue: Int8
        public init(rawValue: Int8) { self.rawValue = rawValue }
        public static let horizontal = Set(rawValue: 1)
        public static let vertical = Set(rawValue: 2)
    }
}

public enum ContentMode: Hashable, CaseIterable, Sendable {
    case fit, fill
}

public nonisolated struct Angle: Hashable, Comparable, Sendable {
    public var radians: Double
    public var degrees: Double { radians * 180 / .pi }
    public nonisolated init(radians: Double) { self.radians = radians }
    public nonisolated init(degrees: Double) { self.radians = degrees * .pi / 180 }
    public static func radians(_ radians: Double) -> Angle { Angle(radians: radians) }
    public static func degrees(_ degrees: Double) -> Angle { Angle(degrees: degrees) }
    public static let zero = Angle(radians: 0)
    public static func < (lhs: Angle, rhs: Angle) -> Bool { lhs.radians < rhs.radians }
}

public nonisolated struct UnitPoint: Hashable, Sendable {
    public var x: CGFloat
    public var y: CGFloat
    public nonisolated init(x: CGFloat, y: CGFloat) {
        self.x = x
        self.y = y
    }
    public static let zero = UnitPoint(x: 0, y: 0)
    public static let center = UnitPoint(x: 0.5, y: 0.5)
    public static let leading = UnitPoint(x: 0, y: 0.5)
    public static let trailing = UnitPoint(x: 1, y: 0.5)
    public static let top = UnitPoint(x: 0.5, y: 0)
    public static let bottom = UnitPoint(x: 0.5, y: 1)
    public static let topLeading = UnitPoint(x: 0, y: 0)
    public static let topTrailing = UnitPoint(x: 1, y: 0)
    public static let bottomLeading = UnitPoint(x: 0, y: 1)
    public static let bottomTrailing = UnitPoint(x: 1, y: 1)
}

public enum CoordinateSpace: Hashable {
    case global, local
    case named(AnyHashable)
}

// MARK: - Stacks

public nonisolated struct VStack<Content: View>: _PrimitiveView {
    public nonisolated init(
        alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content
    ) {}
}

public nonisolated struct HStack<Content: View>: _PrimitiveView {
    public nonisolated init(alignment: VerticalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content)
    {}
}

public nonisolated struct ZStack<Content: View>: _PrimitiveView {
    public nonisolated init(alignment: Alignment = .center, @ViewBuilder content: () -> Content) {}
}

public nonisolated struct LazyVStack<Content: View>: _PrimitiveView {
    public nonisolated init(
        alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, pinnedViews: PinnedScrollableViews = .init(),
        @ViewBuilder content: () -> Content
    ) {}
}

public nonisolated struct LazyHStack<Content: View>: _PrimitiveView {
    public nonisolated init(
        alignment: VerticalAlignment = .center, spacing: CGFloat? = nil, pinnedViews: PinnedScrollableViews = .init(),
        @ViewBuilder content: () -> Content
    ) {}
}

public nonisolated struct PinnedScrollableViews: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let sectionHeaders = PinnedScrollableViews(rawValue: 1)
    public static let sectionFooters = PinnedScrollableViews(rawValue: 2)
}

public nonisolated struct GridItem: Sendable {
    public enum Size: Sendable {
        case fixed(CGFloat)
        case flexible(minimum: CGFloat = 10, maximum: CGFloat = .infinity)
        case adaptive(minimum: CGFloat, maximum: CGFloat = .infinity)
    }
    public var size: Size
    public var spacing: CGFloat?
    public var alignment: Alignment?
    public nonisolated init(_ size: Size = .flexible(), spacing: CGFloat? = nil, alignment: Alignment? = nil) {
        self.size = size
        self.spacing = spacing
        self.alignment = alignment
    }
}

public nonisolated struct LazyVGrid<Content: View>: _PrimitiveView {
    public nonisolated init(
        columns: [GridItem], alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil,
        pinnedViews: PinnedScrollableViews = .init(), @ViewBuilder content: () -> Content
    ) {}
}

public nonisolated struct LazyHGrid<Content: View>: _PrimitiveView {
    public nonisolated init(
        rows: [GridItem], alignment: VerticalAlignment = .center, spacing: CGFloat? = nil,
        pinnedViews: PinnedScrollableViews = .init(), @ViewBuilder content: () -> Content
    ) {}
}

public nonisolated struct Grid<Content: View>: _PrimitiveView {
    public nonisolated init(
        alignment: Alignment = .center, horizontalSpacing: CGFloat? = nil, verticalSpacing: CGFloat? = nil,
        @ViewBuilder content: () -> Content
    ) {}
}

public nonisolated struct GridRow<Content: View>: _PrimitiveView {
    public nonisolated init(alignment: VerticalAlignment? = nil, @ViewBuilder content: () -> Content) {}
}

public nonisolated struct ViewThatFits<Content: View>: _PrimitiveView {
    public nonisolated init(in axes: Axis.Set = [.horizontal, .vertical], @ViewBuilder content: () -> Content) {}
}

// A layout chosen at run time keeps its children's identity (`AnyLayout`): how a row becomes a
// column at the accessibility text sizes. `Layout`'s requirements (`sizeThatFits`,
// `placeSubviews`, the cache) are not declared: the app writes no layout of its own, only picks
// Apple's, and a type of its own conforming here would be caught by scripts/check-app-sdk.
@available(iOS 16.0, macOS 13.0, *)
public protocol Layout {}

@available(iOS 16.0, macOS 13.0, *)
extension Layout {
    public nonisolated func callAsFunction<V: View>(@ViewBuilder _ content: () -> V) -> some View {
        _ModifiedView<V>()
    }
}

@available(iOS 16.0, macOS 13.0, *)
@frozen public nonisolated struct AnyLayout: Layout {
    public nonisolated init<L: Layout>(_ layout: L) {}
}

@available(iOS 16.0, macOS 13.0, *)
@frozen public nonisolated struct HStackLayout: Layout {
    public var alignment: VerticalAlignment
    public var spacing: CGFloat?
    public nonisolated init(alignment: VerticalAlignment = .center, spacing: CGFloat? = nil) {
        self.alignment = alignment
        self.spacing = spacing
    }
}

@available(iOS 16.0, macOS 13.0, *)
@frozen public nonisolated struct VStackLayout: Layout {
    public var alignment: HorizontalAlignment
    public var spacing: CGFloat?
    public nonisolated init(alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil) {
        self.alignment = alignment
        self.spacing = spacing
    }
}

public nonisolated struct Spacer: _PrimitiveView {
    public var minLength: CGFloat?
    public nonisolated init(minLength: CGFloat? = nil) { self.minLength = minLength }
}

public nonisolated struct Divider: _PrimitiveView {
    public nonisolated init() {}
}

// MARK: - Scrolling, lists, forms

public nonisolated struct ScrollView<Content: View>: _PrimitiveView {
    public nonisolated init(_ axes: Axis.Set = .vertical, showsIndicators: Bool = true, @ViewBuilder content: () -> Content) {}
}

public nonisolated struct ScrollViewProxy {
    public func scrollTo<ID: Hashable>(_ id: ID, anchor: UnitPoint? = nil) {}
}

public nonisolated struct ScrollViewReader<Content: View>: _PrimitiveView {
    public nonisolated init(@ViewBuilder content: @escaping (ScrollViewProxy) -> Content) {}
}

public nonisolated struct List<SelectionValue: Hashable, Content: View>: _PrimitiveView {
    public nonisolated init(selection: Binding<SelectionValue?>?, @ViewBuilder content: () -> Content) {}
    public nonisolated init(selection: Binding<Set<SelectionValue>>?, @ViewBuilder content: () -> Content) {}
}

extension List where SelectionValue == Never {
    public nonisolated init(@ViewBuilder content: () -> Content) {}
    public nonisolated init<Data: RandomAccessCollection, RowContent: View>(
        _ data: Data, @ViewBuilder rowContent: @escaping (Data.Element) -> RowContent
    ) where Content == ForEach<Data, Data.Element.ID, RowContent>, Data.Element: Identifiable {}
    public nonisolated init<Data: RandomAccessCollection, ID: Hashable, RowContent: View>(
        _ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder rowContent: @escaping (Data.Element) -> RowContent
    ) where Content == ForEach<Data, ID, RowContent> {}
}

public nonisolated struct Section<Parent, Content, Footer>: _PrimitiveView {
    public nonisolated init(
        @ViewBuilder content: () -> Content, @ViewBuilder header: () -> Parent, @ViewBuilder footer: () -> Footer
    ) where Parent: View, Content: View, Footer: View {}
}

extension Section where Parent: View, Content: View, Footer == EmptyView {
    public nonisolated init(@ViewBuilder content: () -> Content, @ViewBuilder header: () -> Parent) {}
}

extension Section where Parent == EmptyView, Content: View, Footer: View {
    public nonisolated init(@ViewBuilder content: () -> Content, @ViewBuilder footer: () -> Footer) {}
}

extension Section where Parent == EmptyView, Content: View, Footer == EmptyView {
    public nonisolated init(@ViewBuilder content: () -> Content) {}
}

extension Section where Parent == Text, Content: View, Footer == EmptyView {
    public nonisolated init(_ titleKey: LocalizedStringKey, @ViewBuilder content: () -> Content) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S, @ViewBuilder content: () -> Content) {}
}

// The iOS 13 spelling with header and footer views (soft-deprecated, still common).
extension Section where Parent: View, Content: View, Footer: View {
    public nonisolated init(header: Parent, footer: Footer, @ViewBuilder content: () -> Content) {}
}

extension Section where Parent: View, Content: View, Footer == EmptyView {
    public nonisolated init(header: Parent, @ViewBuilder content: () -> Content) {}
}

extension Section where Parent == EmptyView, Content: View, Footer: View {
    public nonisolated init(footer: Footer, @ViewBuilder content: () -> Content) {}
}

public nonisolated struct Form<Content: View>: _PrimitiveView {
    public nonisolated init(@ViewBuilder content: () -> Content) {}
}

public nonisolated struct GroupBox<Label: View, Content: View>: _PrimitiveView {
    public nonisolated init(@ViewBuilder content: () -> Content, @ViewBuilder label: () -> Label) {}
}

extension GroupBox where Label == EmptyView {
    public nonisolated init(@ViewBuilder content: () -> Content) {}
}

extension GroupBox where Label == Text {
    public nonisolated init(_ titleKey: LocalizedStringKey, @ViewBuilder content: () -> Content) {}
}

public nonisolated struct DisclosureGroup<Label: View, Content: View>: _PrimitiveView {
    public nonisolated init(@ViewBuilder content: @escaping () -> Content, @ViewBuilder label: () -> Label) {}
    public nonisolated init(
        isExpanded: Binding<Bool>, @ViewBuilder content: @escaping () -> Content, @ViewBuilder label: () -> Label
    ) {}
}

extension DisclosureGroup where Label == Text {
    public nonisolated init(_ titleKey: LocalizedStringKey, @ViewBuilder content: @escaping () -> Content) {}
    public nonisolated init(
        _ titleKey: LocalizedStringKey, isExpanded: Binding<Bool>, @ViewBuilder content: @escaping () -> Content
    ) {}
}

// MARK: - ForEach

public nonisolated struct ForEach<Data: RandomAccessCollection, ID: Hashable, Content> {
    public var data: Data
}

extension ForEach: View, _PrimitiveView where Content: View {
    public typealias Body = Never
}

extension ForEach where ID == Data.Element.ID, Content: View, Data.Element: Identifiable {
    public nonisolated init(_ data: Data, @ViewBuilder content: @escaping (Data.Element) -> Content) { self.data = data }
}

extension ForEach where Content: View {
    public nonisolated init(
        _ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder content: @escaping (Data.Element) -> Content
    ) {
        self.data = data
    }
    public nonisolated init<C: MutableCollection & RandomAccessCollection>(
        _ data: Binding<C>, @ViewBuilder content: @escaping (Binding<C.Element>) -> Content
    ) where Data == Binding<C>, ID == C.Element.ID, C.Element: Identifiable, C.Index: Hashable {
        self.data = data
    }
    public nonisolated init<C: MutableCollection & RandomAccessCollection>(
        _ data: Binding<C>, id: KeyPath<C.Element, ID>, @ViewBuilder content: @escaping (Binding<C.Element>) -> Content
    ) where Data == Binding<C>, C.Index: Hashable {
        self.data = data
    }
}

extension ForEach where Data == Range<Int>, ID == Int, Content: View {
    public nonisolated init(_ data: Range<Int>, @ViewBuilder content: @escaping (Int) -> Content) { self.data = data }
}

extension ForEach where Content: View {
    /// Swipe-to-delete rows of a List.
    public nonisolated func onDelete(perform action: ((IndexSet) -> Void)?) -> some View { _modified() }
    public nonisolated func onMove(perform action: ((IndexSet, Int) -> Void)?) -> some View { _modified() }
}

// MARK: - Geometry and time

public nonisolated struct GeometryProxy {
    public var size: CGSize { standIn() }
    public var safeAreaInsets: EdgeInsets { standIn() }
    public func frame(in coordinateSpace: CoordinateSpace) -> CGRect { standIn() }
}

public nonisolated struct GeometryReader<Content: View>: _PrimitiveView {
    public nonisolated init(@ViewBuilder content: @escaping (GeometryProxy) -> Content) {}
}

/// Redraws its content on a schedule (an animated multi-frame QR code, "Updated x ago").
public nonisolated struct TimelineView<Schedule: TimelineSchedule, Content> {
    public nonisolated struct Context {
        public var date: Date { standIn() }
        public var cadence: Cadence { standIn() }
        public enum Cadence: Comparable, Sendable {
            case live, seconds, minutes
        }
    }
}

extension TimelineView: View, _PrimitiveView where Content: View {
    public typealias Body = Never
    public nonisolated init(_ schedule: Schedule, @ViewBuilder content: @escaping (TimelineViewDefaultContext) -> Content) {}
}

public typealias TimelineViewDefaultContext = TimelineView<EveryMinuteTimelineSchedule, Never>.Context

public protocol TimelineSchedule {
    associatedtype Entries: Sequence where Entries.Element == Date
    func entries(from startDate: Date, mode: TimelineScheduleMode) -> Entries
}

public enum TimelineScheduleMode: Sendable {
    case normal, lowFrequency
}

public nonisolated struct PeriodicTimelineSchedule: TimelineSchedule, Sendable {
    public nonisolated init(from startDate: Date, by interval: TimeInterval) {}
    public func entries(from startDate: Date, mode: TimelineScheduleMode) -> [Date] { [] }
}

public nonisolated struct EveryMinuteTimelineSchedule: TimelineSchedule, Sendable {
    public nonisolated init() {}
    public func entries(from startDate: Date, mode: TimelineScheduleMode) -> [Date] { [] }
}

public nonisolated struct AnimationTimelineSchedule: TimelineSchedule, Sendable {
    public nonisolated init(minimumInterval: Double? = nil, paused: Bool = false) {}
    public func entries(from startDate: Date, mode: TimelineScheduleMode) -> [Date] { [] }
}

extension TimelineSchedule where Self == PeriodicTimelineSchedule {
    public static func periodic(from startDate: Date, by interval: TimeInterval) -> PeriodicTimelineSchedule {
        PeriodicTimelineSchedule(from: startDate, by: interval)
    }
}

extension TimelineSchedule where Self == EveryMinuteTimelineSchedule {
    public static var everyMinute: EveryMinuteTimelineSchedule { EveryMinuteTimelineSchedule() }
}

extension TimelineSchedule where Self == AnimationTimelineSchedule {
    public static var animation: AnimationTimelineSchedule { AnimationTimelineSchedule() }
    public static func animation(minimumInterval: Double? = nil, paused: Bool = false) -> AnimationTimelineSchedule {
        AnimationTimelineSchedule(minimumInterval: minimumInterval, paused: paused)
    }
}

// MARK: - Preferences

/// A value views pass up to their ancestors (`preference(key:value:)`), combined by `reduce`.
public protocol PreferenceKey {
    associatedtype Value
    static var defaultValue: Value { get }
    static func reduce(value: inout Value, nextValue: () -> Value)
}

extension View {
    public nonisolated func preference<K: PreferenceKey>(key: K.Type = K.self, value: K.Value) -> some View {
        _modified()
    }

    /// Apple's SDK (Xcode 16) takes a `@Sendable` action here, so the stand-in does too.
    public nonisolated func onPreferenceChange<K: PreferenceKey>(
        _ key: K.Type = K.self, perform action: @escaping @Sendable (K.Value) -> Void
    ) -> some View where K.Value: Equatable {
        _modified()
    }

    /// Names this view's coordinate space (iOS 17's form; `coordinateSpace(name:)` is deprecated).
    public nonisolated func coordinateSpace(_ name: NamedCoordinateSpace) -> some View { _modified() }
}

// MARK: - Coordinate spaces (iOS 17's protocol form)

public protocol CoordinateSpaceProtocol {
    var coordinateSpace: CoordinateSpace { get }
}

public nonisolated struct NamedCoordinateSpace: CoordinateSpaceProtocol, Equatable {
    let name: AnyHashable
    public var coordinateSpace: CoordinateSpace { .named(name) }
}

public nonisolated struct LocalCoordinateSpace: CoordinateSpaceProtocol {
    public init() {}
    public var coordinateSpace: CoordinateSpace { .local }
}

public nonisolated struct GlobalCoordinateSpace: CoordinateSpaceProtocol {
    public init() {}
    public var coordinateSpace: CoordinateSpace { .global }
}

extension CoordinateSpaceProtocol where Self == NamedCoordinateSpace {
    public static func named(_ name: some Hashable) -> NamedCoordinateSpace { NamedCoordinateSpace(name: AnyHashable(name)) }
}

extension CoordinateSpaceProtocol where Self == LocalCoordinateSpace {
    public static var local: LocalCoordinateSpace { LocalCoordinateSpace() }
}

extension CoordinateSpaceProtocol where Self == GlobalCoordinateSpace {
    public static var global: GlobalCoordinateSpace { GlobalCoordinateSpace() }
}
