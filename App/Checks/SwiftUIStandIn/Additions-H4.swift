// Stand-in declarations for the shared view components (App/Sources/Views/Components): the
// keyboard-dismissal modifier collects text-field frames through a preference key in a named
// coordinate space and hit-tests a spatial tap against them. Signatures follow Apple's SwiftUI
// (iOS 17+); bodies are trivial, as in the rest of the stand-in.

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
