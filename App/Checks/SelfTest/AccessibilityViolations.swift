// Self-test (scripts/check-app): the accessibility lint MUST flag every line marked below, and
// nothing else: not the labelled, hidden or titled cases, not a comment or a string that
// mentions .font(.system(size: 12)) or Button { Image(systemName: "x") }.

import SwiftUI
import WalletAppModels

struct SelfTestAccessibilityViolationsView: View {
    let home: HomeModel
    @State private var on = false
    @ScaledMetric(relativeTo: .body) private var iconSide: CGFloat = 24

    var body: some View {
        VStack {
            Text(home.totalText)
                .font(.system(size: 34, weight: .bold))  // accessibility: fixed font size
            Text("Fixed")
                .font(Font.custom("Avenir", size: 17))  // accessibility: custom font without relativeTo
            Text("Scaled")
                .font(.custom("Avenir", size: 17, relativeTo: .body))
            Text("Styled")
                .font(.system(.title, design: .rounded))
            Text(verbatim: "Never .font(.system(size: 9)) in a string")
            Button {  // accessibility: image-only button, no label
                Task { await home.refresh() }
            } label: {
                Image(systemName: "arrow.clockwise")
                    .font(.title2)
            }
            Button(action: { on.toggle() }) {  // accessibility: image-only button (action:), no label
                Image(systemName: "gearshape")
            }
            ShareLink(item: home.totalText) {  // accessibility: image-only share link, no label
                Image(systemName: "square.and.arrow.up")
                    .frame(width: iconSide, height: iconSide)
            }
            Button {
                Task { await home.refresh() }
            } label: {
                Image(systemName: "arrow.clockwise")
            }
            .disabled(home.isSyncing)
            .accessibilityLabel("Refresh balances")
            Button {
                on.toggle()
            } label: {
                VStack {
                    Image(systemName: "qrcode.viewfinder")
                    Text("Scan")
                }
            }
            Button("Settings", systemImage: "gearshape") { on.toggle() }
            Toggle(isOn: $on) {
                Label("Lock with Face ID", systemImage: "faceid")
            }
            Image(systemName: "wifi.slash")  // accessibility: standalone image, neither hidden nor labelled
                .font(.largeTitle)
            Image(systemName: "lock.fill")
                .accessibilityHidden(true)
            Image(decorative: "Background")
            Image(systemName: "checkmark.circle.fill")
                .foregroundStyle(.green)
                .accessibilityLabel("Paid")
            HStack {
                Image(systemName: "clock")  // accessibility: inside a row that combines its children
                Text(home.freshness.description)
            }
            .accessibilityElement(children: .combine)
            HStack {
                Image(systemName: "arrow.down.left.circle.fill")
                    .overlay(alignment: .bottomTrailing) {
                        if home.isSyncing {
                            Image(systemName: "clock.fill")
                        }
                    }
                Text(home.totalText)
            }
            .accessibilityElement(children: .ignore)
            .accessibilityLabel("Received \(home.totalText)")
        }
    }
}
