// Self-test (scripts/check-app): the views-hold-no-logic lint MUST flag every marked line below
// (and nothing in its comments or strings: "Wallet", model.total - 1, Task.detached).

import Foundation  // lint: import
import SwiftUI
import WalletAppModels

struct SelfTestLintViolationsView: View {
    var home: HomeModel
    var wallet: Wallet?  // lint: engine type

    var body: some View {
        VStack {
            Text("\(home.offlineTotal + home.reserved)")  // lint: money arithmetic inside an interpolation
            Text(verbatim: "minus \(home.riskBudgetLeft)")
            Button("Sync") {
                Task.detached { await home.session.sync() }  // lint: detached, engine member
            }
        }
    }
}
