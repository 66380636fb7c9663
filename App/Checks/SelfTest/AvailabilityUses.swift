// Self-test (scripts/check-app, "availability"): lint-availability.py MUST flag exactly the lines
// that end in an "availability:" comment. `backgroundExtensionEffect()` is iOS 26 API, above the
// deployment target; the stand-in declares it with Apple's availability. Never compiled: linted.

import SwiftUI

struct SelfTestAvailabilityView: View {
    var body: some View {
        VStack {
            Text("bare").backgroundExtensionEffect()  // availability:
            if #available(iOS 26.0, *) {
                Text("checked").backgroundExtensionEffect()
            }
            if #available(iOS 18.0, *) {
                Text("too old a check").backgroundExtensionEffect()  // availability:
            }
        }
    }

    @available(iOS 26.0, *)
    var marked: some View { Text("marked").backgroundExtensionEffect() }

    func guarded() -> Bool {
        guard #available(iOS 26.0, *) else { return false }
        _ = Text("after the guard").backgroundExtensionEffect()
        return true
    }

    func guardedOverLines() -> Bool {
        guard #available(iOS 26.0, *) else {
            return false
        }
        _ = Text("after a longer guard").backgroundExtensionEffect()
        return true
    }

    @available(iOS 26.0, *)
    func braceOnItsOwnLine() -> some View {
        Text("marked").backgroundExtensionEffect()
    }

    func otherPlatformsFirst(_ value: Int?) -> some View {
        if #available(macOS 26.0, iOS 26.0, *),
            let value
        {
            _ = Text("\(value)").backgroundExtensionEffect()
        }
        return Text("unchecked").backgroundExtensionEffect()  // availability:
    }

    @available(iOS 26.0, *)
    let markedConstant = 1
    var afterAMarkedConstant: some View { Text("not marked").backgroundExtensionEffect() }  // availability:
}
