import SwiftUI
import WalletAppModels

/// The Transactions tab: segmented Send / History. Send is the Send screen in place (a new
/// payment after each one is done); History is the history screen on the app's one
/// `HistoryModel`.
struct TransactionsTabView: View {
    let app: AppModel
    @State private var segment: Segment = .history
    @State private var send: SendModel?

    enum Segment: Hashable, CaseIterable {
        case send, history

        var title: String {
            switch self {
            case .send: "Send"
            case .history: "History"
            }
        }
    }

    var body: some View {
        VStack(spacing: 0) {
            Picker("Transactions", selection: $segment) {
                ForEach(Segment.allCases, id: \.self) { segment in
                    Text(segment.title).tag(segment)
                }
            }
            .pickerStyle(.segmented)
            .padding([.horizontal, .top])
            .accessibilityLabel("Send or history")
            switch segment {
            case .send:
                if let send {
                    SendView(model: send, app: app, onFinish: { self.send = app.makeSend() })
                } else {
                    ProgressView()
                        .frame(maxHeight: .infinity)
                        .onAppear { send = app.makeSend() }
                }
            case .history:
                if let history = app.history {
                    HistoryView(model: history)
                        .id(ObjectIdentifier(history))
                } else {
                    ProgressView()
                        .frame(maxHeight: .infinity)
                }
            }
        }
    }
}
