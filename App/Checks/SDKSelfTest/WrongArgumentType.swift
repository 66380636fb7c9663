// Planted mistake for `scripts/check-app-sdk --self-test`: compiled into the app, it must fail.
// A number where the view takes the model's formatted text.
// expect: cannot convert value of type 'Int' to expected argument type 'String'
import SwiftUI

struct PlantedWrongArgumentView: View {
    var body: some View {
        AmountText(text: 4200, caption: "Total")
    }
}
