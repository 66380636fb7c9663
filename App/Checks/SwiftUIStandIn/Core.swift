// A stand-in for Apple's SwiftUI, compiled as a module named `SwiftUI` on Linux only, so that
// scripts/check-app can type-check the app's views against the real, built WalletAppModels.
// Never shipped, never in the Xcode project: on a Mac `import SwiftUI` is Apple's framework.
// Declarations follow Apple's documented signatures (isolation, Sendable and closure attributes
// included, because those decide what compiles in Swift 6 mode); bodies are trivial.
// See App/Checks/README.md for how to extend it.

// SwiftUI re-exports these: `Date`, `URL`, `CGFloat` and `@Observable` work with only `import SwiftUI`.
@_exported import Foundation
@_exported import Observation

/// Stands for a value that only exists at run time on Apple platforms; never called on Linux.
@usableFromInline
func standIn<T>() -> T {
    fatalError("SwiftUI stand-in: type-checking only, never run")
}

// MARK: - View

/// A piece of user interface. Main-actor isolated, as in Apple's SDK since Xcode 16.
@MainActor @preconcurrency
public protocol View {
    associatedtype Body: View
    @ViewBuilder @MainActor @preconcurrency var body: Body { get }
}

extension Never: View {
    public typealias Body = Never
    public var body: Never { return standIn() }
}

/// Views with no body of their own (Text, VStack, ...): their body is `Never`.
public protocol _PrimitiveView: View where Body == Never {}

extension _PrimitiveView {
    public nonisolated var body: Never { return standIn() }
}

/// The result of a modifier: real SwiftUI returns `some View` (an opaque type) too.
public nonisolated struct _ModifiedView<Content>: _PrimitiveView {
    @usableFromInline nonisolated init() {}
}

extension View {
    /// What every modifier in the stand-in returns.
    @usableFromInline nonisolated func _modified() -> _ModifiedView<Self> { _ModifiedView() }
}

@resultBuilder
public enum ViewBuilder {
    public static func buildExpression<Content: View>(_ content: Content) -> Content { content }
    public static func buildBlock() -> EmptyView { EmptyView() }
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
    // Two to ten children, as Apple's SDKs declare them (C0...C9): a body with eleven does not
    // compile against the iOS 17.0 SDK, so it must not compile here either. Group the extra ones.
    public static func buildBlock<C0: View, C1: View>(
        _ c0: C0, _ c1: C1
    ) -> TupleView<(C0, C1)> {
        TupleView((c0, c1))
    }
    public static func buildBlock<C0: View, C1: View, C2: View>(
        _ c0: C0, _ c1: C1, _ c2: C2
    ) -> TupleView<(C0, C1, C2)> {
        TupleView((c0, c1, c2))
    }
    public static func buildBlock<C0: View, C1: View, C2: View, C3: View>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3
    ) -> TupleView<(C0, C1, C2, C3)> {
        TupleView((c0, c1, c2, c3))
    }
    public static func buildBlock<C0: View, C1: View, C2: View, C3: View, C4: View>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4
    ) -> TupleView<(C0, C1, C2, C3, C4)> {
        TupleView((c0, c1, c2, c3, c4))
    }
    public static func buildBlock<C0: View, C1: View, C2: View, C3: View, C4: View, C5: View>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5
    ) -> TupleView<(C0, C1, C2, C3, C4, C5)> {
        TupleView((c0, c1, c2, c3, c4, c5))
    }
    public static func buildBlock<C0: View, C1: View, C2: View, C3: View, C4: View, C5: View, C6: View>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6
    ) -> TupleView<(C0, C1, C2, C3, C4, C5, C6)> {
        TupleView((c0, c1, c2, c3, c4, c5, c6))
    }
    public static func buildBlock<C0: View, C1: View, C2: View, C3: View, C4: View, C5: View, C6: View, C7: View>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6, _ c7: C7
    ) -> TupleView<(C0, C1, C2, C3, C4, C5, C6, C7)> {
        TupleView((c0, c1, c2, c3, c4, c5, c6, c7))
    }
    public static func buildBlock<C0: View, C1: View, C2: View, C3: View, C4: View, C5: View, C6: View, C7: View, C8: View>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6, _ c7: C7, _ c8: C8
    ) -> TupleView<(C0, C1, C2, C3, C4, C5, C6, C7, C8)> {
        TupleView((c0, c1, c2, c3, c4, c5, c6, c7, c8))
    }
    public static func buildBlock<
        C0: View, C1: View, C2: View, C3: View, C4: View, C5: View, C6: View, C7: View, C8: View, C9: View
    >(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6, _ c7: C7, _ c8: C8, _ c9: C9
    ) -> TupleView<(C0, C1, C2, C3, C4, C5, C6, C7, C8, C9)> {
        TupleView((c0, c1, c2, c3, c4, c5, c6, c7, c8, c9))
    }
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { content }
    public static func buildEither<TrueContent: View, FalseContent: View>(
        first: TrueContent
    )
        -> _ConditionalContent<TrueContent, FalseContent>
    {
        _ConditionalContent()
    }
    public static func buildEither<TrueContent: View, FalseContent: View>(
        second: FalseContent
    )
        -> _ConditionalContent<TrueContent, FalseContent>
    {
        _ConditionalContent()
    }
    public static func buildLimitedAvailability<Content: View>(_ content: Content) -> AnyView { AnyView(content) }
}

public nonisolated struct TupleView<T>: _PrimitiveView {
    public nonisolated init(_ value: T) {}
}

public nonisolated struct _ConditionalContent<TrueContent, FalseContent>: _PrimitiveView {
    nonisolated init() {}
}

extension Optional: View where Wrapped: View {
    public typealias Body = Never
    public nonisolated var body: Never { return standIn() }
}

public nonisolated struct EmptyView: _PrimitiveView {
    public nonisolated init() {}
}

public nonisolated struct AnyView: _PrimitiveView {
    public nonisolated init<V: View>(_ view: V) {}
    public nonisolated init<V: View>(erasing view: V) {}
}

public nonisolated struct Group<Content>: _PrimitiveView {
    public nonisolated init(@ViewBuilder content: () -> Content) where Content: View {}
}

// MARK: - Modifiers

@MainActor @preconcurrency
public protocol ViewModifier {
    associatedtype Body: View
    typealias Content = _ViewModifier_Content<Self>
    @ViewBuilder @MainActor @preconcurrency func body(content: Content) -> Body
}

public nonisolated struct _ViewModifier_Content<Modifier>: _PrimitiveView {}

public nonisolated struct ModifiedContent<Content, Modifier> {
    public var content: Content
    public var modifier: Modifier
    public nonisolated init(content: Content, modifier: Modifier) {
        self.content = content
        self.modifier = modifier
    }
}

extension ModifiedContent: View, _PrimitiveView where Content: View, Modifier: ViewModifier {
    public typealias Body = Never
}

extension View {
    public nonisolated func modifier<T>(_ modifier: T) -> ModifiedContent<Self, T> {
        ModifiedContent(content: self, modifier: modifier)
    }
}

// MARK: - Dynamic properties and previews

public protocol DynamicProperty {
    mutating func update()
}

extension DynamicProperty {
    public mutating func update() {}
}

@MainActor @preconcurrency
public protocol PreviewProvider {
    associatedtype Previews: View
    @ViewBuilder @MainActor @preconcurrency static var previews: Previews { get }
}

// MARK: - App and scenes

@MainActor @preconcurrency
public protocol App {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Body { get }
    @MainActor @preconcurrency init()
}

extension App {
    @MainActor @preconcurrency public static func main() {}
}

@MainActor @preconcurrency
public protocol Scene {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Body { get }
}

public protocol _PrimitiveScene: Scene where Body == Never {}

extension _PrimitiveScene {
    public nonisolated var body: Never { return standIn() }
}

extension Never: Scene {}

@resultBuilder
public enum SceneBuilder {
    public static func buildExpression<Content: Scene>(_ content: Content) -> Content { content }
    public static func buildBlock<Content: Scene>(_ content: Content) -> Content { content }
    // Two to ten children, as Apple's SDKs declare them (C0...C9): a body with eleven does not
    // compile against the iOS 17.0 SDK, so it must not compile here either. Group the extra ones.
    public static func buildBlock<C0: Scene, C1: Scene>(
        _ c0: C0, _ c1: C1
    ) -> _TupleScene<(C0, C1)> {
        _TupleScene()
    }
    public static func buildBlock<C0: Scene, C1: Scene, C2: Scene>(
        _ c0: C0, _ c1: C1, _ c2: C2
    ) -> _TupleScene<(C0, C1, C2)> {
        _TupleScene()
    }
    public static func buildBlock<C0: Scene, C1: Scene, C2: Scene, C3: Scene>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3
    ) -> _TupleScene<(C0, C1, C2, C3)> {
        _TupleScene()
    }
    public static func buildBlock<C0: Scene, C1: Scene, C2: Scene, C3: Scene, C4: Scene>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4
    ) -> _TupleScene<(C0, C1, C2, C3, C4)> {
        _TupleScene()
    }
    public static func buildBlock<C0: Scene, C1: Scene, C2: Scene, C3: Scene, C4: Scene, C5: Scene>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5
    ) -> _TupleScene<(C0, C1, C2, C3, C4, C5)> {
        _TupleScene()
    }
    public static func buildBlock<C0: Scene, C1: Scene, C2: Scene, C3: Scene, C4: Scene, C5: Scene, C6: Scene>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6
    ) -> _TupleScene<(C0, C1, C2, C3, C4, C5, C6)> {
        _TupleScene()
    }
    public static func buildBlock<C0: Scene, C1: Scene, C2: Scene, C3: Scene, C4: Scene, C5: Scene, C6: Scene, C7: Scene>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6, _ c7: C7
    ) -> _TupleScene<(C0, C1, C2, C3, C4, C5, C6, C7)> {
        _TupleScene()
    }
    public static func buildBlock<
        C0: Scene, C1: Scene, C2: Scene, C3: Scene, C4: Scene, C5: Scene, C6: Scene, C7: Scene, C8: Scene
    >(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6, _ c7: C7, _ c8: C8
    ) -> _TupleScene<(C0, C1, C2, C3, C4, C5, C6, C7, C8)> {
        _TupleScene()
    }
    public static func buildBlock<
        C0: Scene, C1: Scene, C2: Scene, C3: Scene, C4: Scene, C5: Scene, C6: Scene, C7: Scene, C8: Scene, C9: Scene
    >(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6, _ c7: C7, _ c8: C8, _ c9: C9
    ) -> _TupleScene<(C0, C1, C2, C3, C4, C5, C6, C7, C8, C9)> {
        _TupleScene()
    }
}

public nonisolated struct _TupleScene<T>: _PrimitiveScene {
    nonisolated init() {}
}

public nonisolated struct _ModifiedScene<Content>: _PrimitiveScene {
    nonisolated init() {}
}

public nonisolated struct WindowGroup<Content: View>: _PrimitiveScene {
    public nonisolated init(@ViewBuilder content: () -> Content) {}
    public nonisolated init(id: String, @ViewBuilder content: () -> Content) {}
}

/// A task the system runs in the background (`.backgroundTask(.appRefresh("id")) { ... }`).
public nonisolated struct BackgroundTask<Request, Response>: Sendable {
    nonisolated init() {}
}

extension BackgroundTask {
    public static func appRefresh(_ identifier: String) -> BackgroundTask<Void, Void> where Request == Void, Response == Void {
        BackgroundTask<Void, Void>()
    }
}

extension Scene {
    public nonisolated func onChange<V: Equatable>(
        of value: V, initial: Bool = false, _ action: @escaping (_ oldValue: V, _ newValue: V) -> Void
    ) -> some Scene { _ModifiedScene<Self>() }
    public nonisolated func onChange<V: Equatable>(
        of value: V, initial: Bool = false, _ action: @escaping () -> Void
    )
        -> some Scene
    { _ModifiedScene<Self>() }
    public nonisolated func backgroundTask<D: Sendable, R: Sendable>(
        _ task: BackgroundTask<D, R>, action: @escaping @Sendable (D) async -> R
    ) -> some Scene { _ModifiedScene<Self>() }
}
