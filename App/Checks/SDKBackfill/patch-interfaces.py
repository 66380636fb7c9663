#!/usr/bin/env python3
"""Backfill: edits COPIES of an older SDK's module interfaces (never the SDK itself) so that what
the iOS 18.0 SDK declares differently reads as it does there. scripts/check-app-sdk runs it only
when the given SDK is older than 18.0, on the copies it keeps in its work folder.

Usage: patch-interfaces.py swiftui|observation|stdlib|concurrency SWIFTINTERFACE   (edited in place; prints what changed)

swiftui      The iOS 18.0 SDK declares these protocols `@MainActor @preconcurrency`, so all of a
             view's members run on the main actor, not only `body` (Apple: "View", "App",
             "ViewModifier", "Scene", "UIViewRepresentable", "UIViewControllerRepresentable";
             https://developer.apple.com/documentation/swiftui/view).
             Also: one `os_log` interpolation in an inlinable body of the 17.x interface that a
             newer compiler refuses (an artifact of the compiler being newer than the SDK).
observation  The `@Observable` and `@ObservationTracked` macro declarations as Swift 6 declares
             them (extension conformance; accessor macro naming `init`, `get`, `set`, `_modify`;
             a peer `_`-prefixed storage), because the compiler's own macro plugin expands to
             that shape (https://developer.apple.com/documentation/observation/observable()).
stdlib       `_willThrowTyped(_:)`, the hook Swift 6.0's standard library gives the compiler: it
             calls it at every `throw` in a typed-throws function, and without it lowering such a
             function crashes. Swift 6.0 declares it `@_alwaysEmitIntoClient` (its body only calls
             a runtime function on iOS 18 and later); the copy gets it with an empty body.
             And `CommandLine.arguments` as Swift 6.0 declares it: its setter obsoleted in Swift 6
             mode, so reading it is concurrency-safe (in 5.9 it is a plain mutable static var).
concurrency  the five checked-continuation hooks of Swift 6.0's _Concurrency
             (`_createCheckedContinuation`, `_createCheckedThrowingContinuation`,
             `_resumeCheckedContinuation`, `_resumeCheckedThrowingContinuation`,
             `_resumeCheckedThrowingContinuationWithError`): in Swift 6 mode the compiler calls an
             Objective-C completion-handler API from `async` code through a CheckedContinuation
             made by them, and without them lowering such a call crashes. All
             `@_alwaysEmitIntoClient`, each one line over CheckedContinuation's public API.
"""
import re
import sys

ISOLATED = ["View", "ViewModifier", "App", "Scene", "UIViewControllerRepresentable", "UIViewRepresentable"]


def swiftui(text):
    changes = []
    for name in ISOLATED:
        pattern = re.compile(r"^((?:@_typeEraser\(AnyView\) )?)public protocol " + name + r"\b", re.M)
        text, count = pattern.subn(lambda m: m.group(1) + "@_Concurrency.MainActor @preconcurrency public protocol " + name, text)
        if count != 1:
            sys.exit(f"patch-interfaces: protocol {name} found {count} times, expected once")
        changes.append(f"{name} @MainActor")
    before = "Accessing Environment<\\(Value.self)>'s value"
    if before in text:
        text = text.replace(before, "Accessing Environment value")
        changes.append("os_log interpolation")
    return text, changes


def observation(text):
    observable = re.compile(r"^@attached\(member,[^\n]*public macro Observable\(\)[^\n]*$", re.M)
    tracked = re.compile(r"^@attached\(accessor\)[^\n]*public macro ObservationTracked\(\)[^\n]*$", re.M)
    text, a = observable.subn(
        "@attached(member, names: named(_$observationRegistrar), named(access), named(withMutation), "
        "named(shouldNotifyObservers)) @attached(memberAttribute) @attached(extension, conformances: "
        "Observation.Observable) public macro Observable() = #externalMacro(module: \"ObservationMacros\", "
        "type: \"ObservableMacro\")", text)
    text, b = tracked.subn(
        "@attached(accessor, names: named(init), named(get), named(set), named(_modify)) "
        "@attached(peer, names: prefixed(`_`)) public macro ObservationTracked() = "
        "#externalMacro(module: \"ObservationMacros\", type: \"ObservationTrackedMacro\")", text)
    if a + b == 0:
        return text, []  # already the Swift 6 shape
    if (a, b) != (1, 1):
        sys.exit(f"patch-interfaces: Observable found {a} times, ObservationTracked {b} times, expected once each")
    return text, ["Observable", "ObservationTracked"]


def stdlib(text):
    changes = []
    if "func _willThrowTyped<" not in text:
        text += ("\n@_silgen_name(\"swift_willThrowTyped\")\n"
                 "@inlinable @_alwaysEmitIntoClient public func _willThrowTyped<E>(_ error: E) where E : Swift.Error {}\n")
        changes.append("_willThrowTyped")
    plain = "  public static var arguments: [Swift.String]\n}"
    if text.count(plain) == 1:
        text = text.replace(plain, "  public static var arguments: [Swift.String] {\n    get\n"
                            "    @available(swift, obsoleted: 6.0)\n    set\n  }\n}")
        changes.append("CommandLine.arguments")
    return text, changes


CHECKED_CONTINUATION_HOOKS = """
@_alwaysEmitIntoClient internal func _createCheckedContinuation<T>(_ continuation: __owned _Concurrency.UnsafeContinuation<T, Swift.Never>) -> _Concurrency.CheckedContinuation<T, Swift.Never> {
  return CheckedContinuation(continuation: continuation)
}
@_alwaysEmitIntoClient internal func _createCheckedThrowingContinuation<T>(_ continuation: __owned _Concurrency.UnsafeContinuation<T, any Swift.Error>) -> _Concurrency.CheckedContinuation<T, any Swift.Error> {
  return CheckedContinuation(continuation: continuation)
}
@_alwaysEmitIntoClient internal func _resumeCheckedContinuation<T>(_ continuation: _Concurrency.CheckedContinuation<T, Swift.Never>, _ value: __owned T) {
  continuation.resume(returning: value)
}
@_alwaysEmitIntoClient internal func _resumeCheckedThrowingContinuation<T>(_ continuation: _Concurrency.CheckedContinuation<T, any Swift.Error>, _ value: __owned T) {
  continuation.resume(returning: value)
}
@_alwaysEmitIntoClient internal func _resumeCheckedThrowingContinuationWithError<T>(_ continuation: _Concurrency.CheckedContinuation<T, any Swift.Error>, _ error: __owned any Swift.Error) {
  continuation.resume(throwing: error)
}
"""


def concurrency(text):
    if "func _createCheckedContinuation<" in text:
        return text, []
    return text + CHECKED_CONTINUATION_HOOKS, ["checked-continuation hooks"]


def main():
    kinds = {"swiftui": swiftui, "observation": observation, "stdlib": stdlib, "concurrency": concurrency}
    if len(sys.argv) != 3 or sys.argv[1] not in kinds:
        sys.exit(__doc__)
    kind, path = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text, changes = kinds[kind](text)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"{kind}: {', '.join(changes) or 'nothing to change'}")


main()
