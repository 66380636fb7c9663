// Planted mistakes for App/Checks/lint-strings.py's view literals (see PlantedModel.swift).
import SwiftUI

struct PlantedView: View {
    let name: String
    var body: some View {
        VStack {
            Text("Fully translated.")
            Text("Hello \(name)")  // strings: fragment
            Button("Not in the catalog") {}  // strings: missing
            Text(verbatim: "A verbatim value is not looked up")
            Text(name)
        }
    }
}
