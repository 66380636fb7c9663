// Self-test (scripts/check-app): MUST FAIL to type-check — main-actor model state set from
// `refreshable`'s `@Sendable` closure, which SwiftUI does not run on the main actor (the Swift 6
// compiler diagnoses it on iOS too; check-app treats warnings as errors; `await model.refresh()`
// is the right form). Proves the stand-in keeps Apple's isolation, not just its names.

import SwiftUI
import WalletAppModels

struct SelfTestMainActorFromSendableView: View {
    var model: HistoryModel

    var body: some View {
        List {
            Text(verbatim: model.filter.title)
        }
        .refreshable { model.filter = .all }
    }
}
