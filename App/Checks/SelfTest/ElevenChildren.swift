// Self-test (scripts/check-app): MUST FAIL to type-check — a body with eleven children. Apple's
// SDKs declare ViewBuilder.buildBlock for up to ten (the iOS 17.0 SDK has no variadic one), so
// Xcode with such an SDK refuses this; the stand-in must refuse it too.

import SwiftUI

struct SelfTestElevenChildrenView: View {
    var body: some View {
        VStack {
            Text("1")
            Text("2")
            Text("3")
            Text("4")
            Text("5")
            Text("6")
            Text("7")
            Text("8")
            Text("9")
            Text("10")
            Text("11")
        }
    }
}
