// SwiftUI stand-in (never shipped): navigation stacks and links, tabs, toolbars.

// MARK: - Navigation

public nonisolated struct NavigationPath: Equatable {
    public nonisolated init() {}
    public var count: Int { 0 }
    public var isEmpty: Bool { true }
    public mutating func append<V: Hashable>(_ value: V) {}
    public mutating func removeLast(_ k: Int = 1) {}
}

public nonisolated struct NavigationStack<Data, Root: View>: _PrimitiveView {
    public nonisolated init(@ViewBuilder root: () -> Root) where Data == NavigationPath {}
    public nonisolated init(path: Binding<NavigationPath>, @ViewBuilder root: () -> Root) where Data == NavigationPath {}
    public nonisolated init(path: Binding<Data>, @ViewBuilder root: () -> Root)
    where Data: MutableCollection, Data: RandomAccessCollection, Data: RangeReplaceableCollection, Data.Element: Hashable {}
}

public nonisolated struct NavigationLink<Label: View, Destination: View>: _PrimitiveView {
    public nonisolated init(@ViewBuilder destination: () -> Destination, @ViewBuilder label: () -> Label) {}
}

extension NavigationLink where Destination == Never {
    public nonisolated init<P: Hashable>(value: P?, @ViewBuilder label: () -> Label) {}
}

extension NavigationLink where Label == Text {
    public nonisolated init(_ titleKey: LocalizedStringKey, @ViewBuilder destination: () -> Destination) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S, @ViewBuilder destination: () -> Destination) {}
}

extension NavigationLink where Label == Text, Destination == Never {
    public nonisolated init<P: Hashable>(_ titleKey: LocalizedStringKey, value: P?) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol, P: Hashable>(_ title: S, value: P?) {}
}

public enum NavigationBarItem {
    public enum TitleDisplayMode: Sendable {
        case automatic, inline, large
    }
}

public enum Visibility: Hashable, CaseIterable, Sendable {
    case automatic, visible, hidden
}

// MARK: - Tabs

public nonisolated struct TabView<SelectionValue: Hashable, Content: View>: _PrimitiveView {
    public nonisolated init(selection: Binding<SelectionValue>?, @ViewBuilder content: () -> Content) {}
}

extension TabView where SelectionValue == Int {
    public nonisolated init(@ViewBuilder content: () -> Content) {}
}

@MainActor @preconcurrency
public protocol TabViewStyle {}

public nonisolated struct PageTabViewStyle: TabViewStyle {
    public enum IndexDisplayMode: Sendable {
        case automatic, always, never
    }
    public nonisolated init(indexDisplayMode: IndexDisplayMode = .automatic) {}
}

public nonisolated struct DefaultTabViewStyle: TabViewStyle {
    public nonisolated init() {}
}

extension TabViewStyle where Self == PageTabViewStyle {
    public static var page: PageTabViewStyle { PageTabViewStyle() }
    public static func page(indexDisplayMode: PageTabViewStyle.IndexDisplayMode) -> PageTabViewStyle {
        PageTabViewStyle(indexDisplayMode: indexDisplayMode)
    }
}

extension TabViewStyle where Self == DefaultTabViewStyle {
    public static var automatic: DefaultTabViewStyle { DefaultTabViewStyle() }
}

// MARK: - Toolbars

@MainActor @preconcurrency
public protocol ToolbarContent {
    associatedtype Body: ToolbarContent
    @ToolbarContentBuilder @MainActor @preconcurrency var body: Body { get }
}

public protocol _PrimitiveToolbarContent: ToolbarContent where Body == Never {}

extension _PrimitiveToolbarContent {
    public nonisolated var body: Never { return standIn() }
}

extension Never: ToolbarContent {}

extension Optional: ToolbarContent where Wrapped: ToolbarContent {
    public nonisolated var body: Never { return standIn() }
}

@resultBuilder
public enum ToolbarContentBuilder {
    public static func buildExpression<Content: ToolbarContent>(_ content: Content) -> Content { content }
    public static func buildBlock<Content: ToolbarContent>(_ content: Content) -> Content { content }
    // Two to ten children, as Apple's SDKs declare them (C0...C9): a body with eleven does not
    // compile against the iOS 17.0 SDK, so it must not compile here either. Group the extra ones.
    public static func buildBlock<C0: ToolbarContent, C1: ToolbarContent>(
        _ c0: C0, _ c1: C1
    ) -> _TupleToolbarContent<(C0, C1)> {
        _TupleToolbarContent()
    }
    public static func buildBlock<C0: ToolbarContent, C1: ToolbarContent, C2: ToolbarContent>(
        _ c0: C0, _ c1: C1, _ c2: C2
    ) -> _TupleToolbarContent<(C0, C1, C2)> {
        _TupleToolbarContent()
    }
    public static func buildBlock<C0: ToolbarContent, C1: ToolbarContent, C2: ToolbarContent, C3: ToolbarContent>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3
    ) -> _TupleToolbarContent<(C0, C1, C2, C3)> {
        _TupleToolbarContent()
    }
    public static func buildBlock<
        C0: ToolbarContent, C1: ToolbarContent, C2: ToolbarContent, C3: ToolbarContent, C4: ToolbarContent
    >(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4
    ) -> _TupleToolbarContent<(C0, C1, C2, C3, C4)> {
        _TupleToolbarContent()
    }
    public static func buildBlock<
        C0: ToolbarContent, C1: ToolbarContent, C2: ToolbarContent, C3: ToolbarContent, C4: ToolbarContent, C5: ToolbarContent
    >(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5
    ) -> _TupleToolbarContent<(C0, C1, C2, C3, C4, C5)> {
        _TupleToolbarContent()
    }
    public static func buildBlock<
        C0: ToolbarContent, C1: ToolbarContent, C2: ToolbarContent, C3: ToolbarContent, C4: ToolbarContent, C5: ToolbarContent,
        C6: ToolbarContent
    >(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6
    ) -> _TupleToolbarContent<(C0, C1, C2, C3, C4, C5, C6)> {
        _TupleToolbarContent()
    }
    public static func buildBlock<
        C0: ToolbarContent, C1: ToolbarContent, C2: ToolbarContent, C3: ToolbarContent, C4: ToolbarContent, C5: ToolbarContent,
        C6: ToolbarContent, C7: ToolbarContent
    >(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6, _ c7: C7
    ) -> _TupleToolbarContent<(C0, C1, C2, C3, C4, C5, C6, C7)> {
        _TupleToolbarContent()
    }
    public static func buildBlock<
        C0: ToolbarContent, C1: ToolbarContent, C2: ToolbarContent, C3: ToolbarContent, C4: ToolbarContent, C5: ToolbarContent,
        C6: ToolbarContent, C7: ToolbarContent, C8: ToolbarContent
    >(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6, _ c7: C7, _ c8: C8
    ) -> _TupleToolbarContent<(C0, C1, C2, C3, C4, C5, C6, C7, C8)> {
        _TupleToolbarContent()
    }
    public static func buildBlock<
        C0: ToolbarContent, C1: ToolbarContent, C2: ToolbarContent, C3: ToolbarContent, C4: ToolbarContent, C5: ToolbarContent,
        C6: ToolbarContent, C7: ToolbarContent, C8: ToolbarContent, C9: ToolbarContent
    >(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6, _ c7: C7, _ c8: C8, _ c9: C9
    ) -> _TupleToolbarContent<(C0, C1, C2, C3, C4, C5, C6, C7, C8, C9)> {
        _TupleToolbarContent()
    }
    public static func buildIf<Content: ToolbarContent>(_ content: Content?) -> Content? { content }
    public static func buildEither<T: ToolbarContent, F: ToolbarContent>(first: T) -> _ConditionalToolbarContent<T, F> {
        _ConditionalToolbarContent()
    }
    public static func buildEither<T: ToolbarContent, F: ToolbarContent>(second: F) -> _ConditionalToolbarContent<T, F> {
        _ConditionalToolbarContent()
    }
}

public nonisolated struct _TupleToolbarContent<T>: _PrimitiveToolbarContent {
    nonisolated init() {}
}

public nonisolated struct _ConditionalToolbarContent<T, F>: _PrimitiveToolbarContent {
    nonisolated init() {}
}

public nonisolated struct ToolbarItemPlacement: Sendable {
    let id: Int
    public static let automatic = ToolbarItemPlacement(id: 0)
    public static let principal = ToolbarItemPlacement(id: 1)
    public static let navigation = ToolbarItemPlacement(id: 2)
    public static let primaryAction = ToolbarItemPlacement(id: 3)
    public static let secondaryAction = ToolbarItemPlacement(id: 4)
    public static let status = ToolbarItemPlacement(id: 5)
    public static let confirmationAction = ToolbarItemPlacement(id: 6)
    public static let cancellationAction = ToolbarItemPlacement(id: 7)
    public static let destructiveAction = ToolbarItemPlacement(id: 8)
    public static let keyboard = ToolbarItemPlacement(id: 9)
    public static let topBarLeading = ToolbarItemPlacement(id: 10)
    public static let topBarTrailing = ToolbarItemPlacement(id: 11)
    public static let bottomBar = ToolbarItemPlacement(id: 12)
    /// Soft-deprecated on iOS 17 (no warning): `topBarLeading`.
    public static let navigationBarLeading = ToolbarItemPlacement(id: 10)
    /// Soft-deprecated on iOS 17 (no warning): `topBarTrailing`.
    public static let navigationBarTrailing = ToolbarItemPlacement(id: 11)
}

public nonisolated struct ToolbarItem<ID, Content: View>: _PrimitiveToolbarContent {
    public nonisolated init(placement: ToolbarItemPlacement = .automatic, @ViewBuilder content: () -> Content) where ID == () {}
    public nonisolated init(id: String, placement: ToolbarItemPlacement = .automatic, @ViewBuilder content: () -> Content)
    where ID == String {}
}

public nonisolated struct ToolbarItemGroup<Content: View>: _PrimitiveToolbarContent {
    public nonisolated init(placement: ToolbarItemPlacement = .automatic, @ViewBuilder content: () -> Content) {}
}

public nonisolated struct ToolbarPlacement: Sendable {
    let id: Int
    public static let automatic = ToolbarPlacement(id: 0)
    public static let navigationBar = ToolbarPlacement(id: 1)
    public static let tabBar = ToolbarPlacement(id: 2)
    public static let bottomBar = ToolbarPlacement(id: 3)
}

// Apple's two `toolbar(content:)` overloads differ only in their builder; keep them.
// swift-format-ignore: AmbiguousTrailingClosureOverload
extension View {
    public nonisolated func toolbar<Content: View>(@ViewBuilder content: () -> Content) -> some View { _modified() }
    public nonisolated func toolbar<Content: ToolbarContent>(@ToolbarContentBuilder content: () -> Content) -> some View {
        _modified()
    }
    public nonisolated func toolbar(_ visibility: Visibility, for bars: ToolbarPlacement...) -> some View { _modified() }
    public nonisolated func toolbarBackground(_ visibility: Visibility, for bars: ToolbarPlacement...) -> some View {
        _modified()
    }
    public nonisolated func toolbarBackground<S: ShapeStyle>(_ style: S, for bars: ToolbarPlacement...) -> some View {
        _modified()
    }
    public nonisolated func toolbarRole(_ role: ToolbarRole) -> some View { _modified() }

    public nonisolated func navigationTitle(_ titleKey: LocalizedStringKey) -> some View { _modified() }
    @_disfavoredOverload
    public nonisolated func navigationTitle<S: StringProtocol>(_ title: S) -> some View { _modified() }
    public nonisolated func navigationTitle(_ title: Text) -> some View { _modified() }
    public nonisolated func navigationBarTitleDisplayMode(_ displayMode: NavigationBarItem.TitleDisplayMode) -> some View {
        _modified()
    }
    public nonisolated func navigationBarBackButtonHidden(_ hidesBackButton: Bool = true) -> some View { _modified() }
    public nonisolated func navigationDestination<D: Hashable, C: View>(
        for data: D.Type, @ViewBuilder destination: @escaping (D) -> C
    )
        -> some View
    { _modified() }
    public nonisolated func navigationDestination<V: View>(
        isPresented: Binding<Bool>, @ViewBuilder destination: () -> V
    ) -> some View {
        _modified()
    }
    public nonisolated func navigationDestination<D: Hashable, C: View>(
        item: Binding<D?>, @ViewBuilder destination: @escaping (D) -> C
    ) -> some View { _modified() }

    public nonisolated func tabItem<V: View>(@ViewBuilder _ label: () -> V) -> some View { _modified() }
    public nonisolated func tag<V: Hashable>(_ tag: V, includeOptional: Bool = true) -> some View { _modified() }
    public nonisolated func tabViewStyle<S: TabViewStyle>(_ style: S) -> some View { _modified() }
    public nonisolated func badge(_ count: Int) -> some View { _modified() }
    public nonisolated func badge(_ label: Text?) -> some View { _modified() }
    public nonisolated func badge(_ key: LocalizedStringKey?) -> some View { _modified() }
    @_disfavoredOverload
    public nonisolated func badge<S: StringProtocol>(_ label: S?) -> some View { _modified() }
}

public nonisolated struct ToolbarRole: Sendable {
    public static let automatic = ToolbarRole()
    public static let navigationStack = ToolbarRole()
    public static let browser = ToolbarRole()
    public static let editor = ToolbarRole()
}
