// SwiftUI stand-in (never shipped): state, bindings, environment and focus.

// MARK: - State and Binding

@frozen @propertyWrapper
public struct State<Value>: DynamicProperty {
    public nonisolated init(wrappedValue value: Value) {}
    public nonisolated init(initialValue value: Value) {}
    public var wrappedValue: Value {
        get { standIn() }
        nonmutating set {}
    }
    public var projectedValue: Binding<Value> { standIn() }
}

extension State where Value: ExpressibleByNilLiteral {
    public nonisolated init() {}
}

extension State: Sendable where Value: Sendable {}

@frozen @propertyWrapper @dynamicMemberLookup
public struct Binding<Value> {
    /// Apple's declaration carries `@_inheritActorContext` (hidden in its documentation), so the
    /// closures run on the view's main actor and may read main-actor models.
    @preconcurrency public nonisolated init(
        @_inheritActorContext get: @escaping @isolated(any) @Sendable () -> Value,
        @_inheritActorContext set: @escaping @isolated(any) @Sendable (Value) -> Void
    ) {}
    public nonisolated init(projectedValue: Binding<Value>) {}
    public static func constant(_ value: Value) -> Binding<Value> { standIn() }
    public var wrappedValue: Value {
        get { standIn() }
        nonmutating set {}
    }
    public var projectedValue: Binding<Value> { self }
    public subscript<Subject>(dynamicMember keyPath: WritableKeyPath<Value, Subject>) -> Binding<Subject> {
        standIn()
    }
}

extension Binding: @unchecked Sendable where Value: Sendable {}

extension Binding {
    /// A binding to an optional's value, or nil when the value is nil.
    public nonisolated init?(_ base: Binding<Value?>) { return nil }
    /// A binding to an optional projecting a non-optional one.
    public nonisolated init<V>(_ base: Binding<V>) where Value == V? {}
    /// A binding whose value is hashable, type-erased.
    public nonisolated init<V: Hashable>(_ base: Binding<V>) where Value == AnyHashable {}
}

extension Binding: Identifiable where Value: Identifiable {
    public var id: Value.ID { standIn() }
}

extension Binding: Sequence where Value: MutableCollection {
    public typealias Element = Binding<Value.Element>
    public typealias Iterator = IndexingIterator<Binding<Value>>
    public typealias SubSequence = Slice<Binding<Value>>
}

extension Binding: Collection where Value: MutableCollection {
    public typealias Index = Value.Index
    public typealias Indices = Value.Indices
    public var startIndex: Index { standIn() }
    public var endIndex: Index { standIn() }
    public var indices: Indices { standIn() }
    public func index(after i: Index) -> Index { standIn() }
    public subscript(position: Index) -> Binding<Value.Element> { standIn() }
}

extension Binding: BidirectionalCollection where Value: BidirectionalCollection, Value: MutableCollection {
    public func index(before i: Index) -> Index { standIn() }
}

extension Binding: RandomAccessCollection where Value: MutableCollection, Value: RandomAccessCollection {}

/// `@Bindable var model` / `Bindable(model)`: bindings to an `@Observable` object's settable
/// properties. Only `ReferenceWritableKeyPath`s bind, so a `private(set)` property cannot.
@dynamicMemberLookup @propertyWrapper
public struct Bindable<Value> {
    private var object: Value
    public var wrappedValue: Value {
        get { object }
        set { object = newValue }
    }
    public var projectedValue: Bindable<Value> { self }
    // In the type itself (not a constrained extension) so a view's memberwise init takes the
    // model, as on iOS (`struct BookEditView: View { @Bindable var book: Book }`, then
    // `BookEditView(book: book)`).
    public nonisolated init(wrappedValue: Value) where Value: AnyObject, Value: Observable { object = wrappedValue }
    public nonisolated init(_ wrappedValue: Value) where Value: AnyObject, Value: Observable { object = wrappedValue }
    public nonisolated init(projectedValue: Bindable<Value>) where Value: AnyObject, Value: Observable {
        object = projectedValue.object
    }
    public subscript<Subject>(dynamicMember keyPath: ReferenceWritableKeyPath<Value, Subject>) -> Binding<Subject>
    where Value: AnyObject {
        standIn()
    }
}

extension Bindable: Identifiable where Value: Identifiable {
    public var id: Value.ID { wrappedValue.id }
}

extension Bindable: Sendable where Value: Sendable {}

/// A value stored in UserDefaults. (The app keeps its settings in the models' SettingsStore;
/// declared for completeness of the common surface.)
@frozen @propertyWrapper
public struct AppStorage<Value>: DynamicProperty {
    private let key: String
    public var wrappedValue: Value {
        get { standIn() }
        nonmutating set {}
    }
    public var projectedValue: Binding<Value> { standIn() }
}

extension AppStorage {
    public nonisolated init(wrappedValue: Value, _ key: String) where Value == Bool { self.key = key }
    public nonisolated init(wrappedValue: Value, _ key: String) where Value == Int { self.key = key }
    public nonisolated init(wrappedValue: Value, _ key: String) where Value == Double { self.key = key }
    public nonisolated init(wrappedValue: Value, _ key: String) where Value == String { self.key = key }
    public nonisolated init(wrappedValue: Value, _ key: String) where Value: RawRepresentable, Value.RawValue == String {
        self.key = key
    }
    public nonisolated init(wrappedValue: Value, _ key: String) where Value: RawRepresentable, Value.RawValue == Int {
        self.key = key
    }
}

// MARK: - Environment

public protocol EnvironmentKey {
    associatedtype Value
    static var defaultValue: Value { get }
}

public nonisolated struct EnvironmentValues: CustomStringConvertible {
    public nonisolated init() {}
    public var description: String { "EnvironmentValues" }
    public subscript<K: EnvironmentKey>(key: K.Type) -> K.Value {
        get { standIn() }
        set {}
    }
    public var dismiss: DismissAction { standIn() }
    public var openURL: OpenURLAction {
        get { standIn() }
        set {}
    }
    public var refresh: RefreshAction? { standIn() }
    public var scenePhase: ScenePhase {
        get { standIn() }
        set {}
    }
    public var colorScheme: ColorScheme {
        get { standIn() }
        set {}
    }
    public var dynamicTypeSize: DynamicTypeSize {
        get { standIn() }
        set {}
    }
    public var isEnabled: Bool {
        get { standIn() }
        set {}
    }
    public var isPresented: Bool { standIn() }
    public var locale: Locale {
        get { standIn() }
        set {}
    }
    public var calendar: Calendar {
        get { standIn() }
        set {}
    }
    public var timeZone: TimeZone {
        get { standIn() }
        set {}
    }
    public var horizontalSizeClass: UserInterfaceSizeClass? {
        get { standIn() }
        set {}
    }
    public var verticalSizeClass: UserInterfaceSizeClass? {
        get { standIn() }
        set {}
    }
    public var accessibilityReduceMotion: Bool { standIn() }
    public var accessibilityVoiceOverEnabled: Bool { standIn() }
    public var accessibilityDifferentiateWithoutColor: Bool { standIn() }
    public var accessibilityReduceTransparency: Bool { standIn() }
    public var legibilityWeight: LegibilityWeight? { standIn() }
    public var editMode: Binding<EditMode>? {
        get { standIn() }
        set {}
    }
}

@frozen @propertyWrapper
public struct Environment<Value>: DynamicProperty {
    public nonisolated init(_ keyPath: KeyPath<EnvironmentValues, Value>) {}
    public nonisolated init(_ objectType: Value.Type) where Value: AnyObject, Value: Observable {}
    public nonisolated init<T: AnyObject & Observable>(_ objectType: T.Type) where Value == T? {}
    public var wrappedValue: Value { standIn() }
}

extension Environment: Sendable where Value: Sendable {}

/// `@Environment(\.dismiss) private var dismiss` then `dismiss()`.
@MainActor @preconcurrency
public struct DismissAction {
    public func callAsFunction() {}
}

public nonisolated struct OpenURLAction {
    public nonisolated struct Result: Sendable {
        public static let handled = Result()
        public static let discarded = Result()
        public static let systemAction = Result()
        public static func systemAction(_ url: URL) -> Result { Result() }
    }
    @preconcurrency public nonisolated init(handler: @escaping @MainActor (URL) -> Result) {}
    @MainActor public func callAsFunction(_ url: URL) {}
    @MainActor public func callAsFunction(_ url: URL, completion: @escaping (_ accepted: Bool) -> Void) {}
}

public nonisolated struct RefreshAction: Sendable {
    public func callAsFunction() async {}
}

public enum ScenePhase: Comparable, Hashable, Sendable {
    case background, inactive, active
}

public enum ColorScheme: CaseIterable, Hashable, Sendable {
    case light, dark
}

public enum UserInterfaceSizeClass: Hashable, Sendable {
    case compact, regular
}

public nonisolated struct LegibilityWeight: Hashable, Sendable {
    public static let regular = LegibilityWeight()
    public static let bold = LegibilityWeight()
}

public enum EditMode: Hashable, Sendable {
    case inactive, transient, active
    public var isEditing: Bool { self == .active }
}

public enum DynamicTypeSize: Hashable, Comparable, CaseIterable, Sendable {
    case xSmall, small, medium, large, xLarge, xxLarge, xxxLarge
    case accessibility1, accessibility2, accessibility3, accessibility4, accessibility5
    public var isAccessibilitySize: Bool { self >= .accessibility1 }
}

// MARK: - Focus

@frozen @propertyWrapper
public struct FocusState<Value: Hashable>: DynamicProperty {
    @frozen @propertyWrapper
    public struct Binding {
        private let state: Int
        public var wrappedValue: Value {
            get { standIn() }
            nonmutating set {}
        }
        public var projectedValue: FocusState<Value>.Binding { self }
    }
    public var wrappedValue: Value {
        get { standIn() }
        nonmutating set {}
    }
    public var projectedValue: FocusState<Value>.Binding { standIn() }
    public nonisolated init() where Value == Bool {}
    public nonisolated init<T: Hashable>() where Value == T? {}
}

extension FocusState: Sendable where Value: Sendable {}
extension FocusState.Binding: Sendable where Value: Sendable {}

extension View {
    public nonisolated func focused<Value: Hashable>(
        _ binding: FocusState<Value>.Binding, equals value: Value
    )
        -> some View
    { _modified() }
    public nonisolated func focused(_ condition: FocusState<Bool>.Binding) -> some View { _modified() }
    public nonisolated func defaultFocus<V: Hashable>(_ binding: FocusState<V>.Binding, _ value: V) -> some View {
        _modified()
    }
    public nonisolated func environment<V>(_ keyPath: WritableKeyPath<EnvironmentValues, V>, _ value: V) -> some View {
        _modified()
    }
    public nonisolated func environment<T: AnyObject & Observable>(_ object: T?) -> some View { _modified() }
}

extension Scene {
    public nonisolated func environment<V>(_ keyPath: WritableKeyPath<EnvironmentValues, V>, _ value: V) -> some Scene {
        _ModifiedScene<Self>()
    }
    public nonisolated func environment<T: AnyObject & Observable>(_ object: T?) -> some Scene {
        _ModifiedScene<Self>()
    }
}

/// A length that grows and shrinks with the person's text size (a QR code's side, an icon's
/// frame), relative to a text style.
@available(iOS 14.0, macOS 11.0, *)
@propertyWrapper
public struct ScaledMetric<Value: BinaryFloatingPoint>: DynamicProperty {
    private let base: Value
    public nonisolated init(wrappedValue: Value, relativeTo textStyle: Font.TextStyle) { base = wrappedValue }
    public nonisolated init(wrappedValue: Value) { base = wrappedValue }
    public var wrappedValue: Value { base }
}

/// Runs `body` with an animation (the stand-in runs nothing: type-checking only).
public func withAnimation<Result>(_ animation: Animation? = .default, _ body: () throws -> Result) rethrows -> Result {
    try body()
}
