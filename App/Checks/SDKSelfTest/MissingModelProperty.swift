// Planted mistake for `scripts/check-app-sdk --self-test`: compiled into the app, it must fail.
// A view names a model property that does not exist.
// expect: has no member 'amountTextThatDoesNotExist'
import SwiftUI
import WalletAppModels

struct PlantedMissingPropertyView: View {
    var model: SendModel

    var body: some View {
        Text(model.amountTextThatDoesNotExist)
    }
}
