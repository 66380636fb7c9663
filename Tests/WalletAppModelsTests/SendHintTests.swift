import Foundation
import OfflineNotes
import Testing
import WalletAppModels
import WalletCore
import WalletTestSupport

/// docs/protocol.md §4.5: a hint a payer cannot use is ignored like an unknown kind. Send picks
/// Bluetooth only for a well-formed Bluetooth or TCP hint, which gives it a service to reach; a
/// request whose only nearby hint is malformed is paid by QR.
@MainActor
@Suite struct SendHintTests {
    @Test func aRequestWhoseOnlyNearbyHintIsMalformedIsPaidByQR() async throws {
        let pair = try WalletPair(funds: 1_000)
        let settings = InMemorySettingsStore()
        let app = AppModel(
            settings: settings, connectivity: ManualConnectivity(.offline), scheduler: RecordingScheduler(),
            notifier: RecordingNotifier(), lock: LockModel(gate: NoBiometrics(), settings: settings))
        app.start(wallet: AsyncWallet(pair.payer), session: nil)
        let send = try #require(app.makeSend(locale: Locale(identifier: "en_US")))
        let session = SoftwareSigner().publicKey
        let usable = try pair.payee.createRequest(
            amount: 100, hints: [TransportHint(kind: .bluetooth, value: Array(repeating: 7, count: 16))], sessionKey: session)
        send.useRequest(usable)
        #expect(send.method == .bluetooth)
        // The next scan's hints are all malformed: nothing nearby to reach, so QR.
        let malformed = try pair.payee.createRequest(
            amount: 100, hints: [TransportHint(kind: .bluetooth, value: [1, 2, 3]), .tcp("no port")], sessionKey: session)
        send.useRequest(malformed)
        #expect(send.method == .qr)
    }
}
