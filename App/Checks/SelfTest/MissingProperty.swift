// Self-test (scripts/check-app): MUST FAIL to type-check — the view names a model property that
// does not exist. If this ever type-checks, the stand-in accepts anything and the check is void.

import SwiftUI
import WalletAppModels

struct SelfTestMissingPropertyView: View {
    var model: SendModel

    var body: some View {
        Text(model.amountTextThatDoesNotExist)
    }
}
