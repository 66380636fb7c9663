import DevIssuer
import Foundation
import NearbySession
import NearbySessionTesting
import OfflineNotes
import Synchronization
import Testing
import WalletCore
import WalletFlows
import WalletTestSupport

/// The shared pair (WalletTestSupport) with this suite's flows.
typealias NearbyPair = WalletPair

extension WalletPair {
    static var options: SessionOptions { sessionOptions }
    var payFlow: NearbyPayFlow { NearbyPayFlow(wallet: payer, options: Self.options) }
    var receiveFlow: NearbyReceiveFlow { NearbyReceiveFlow(wallet: payee, options: Self.options) }
}

/// Events a callback saw, in order.
final class Recorder<Event: Sendable>: Sendable {
    private let events = Mutex<[Event]>([])
    var all: [Event] { events.withLock { $0 } }
    var sink: @Sendable (Event) -> Void { { event in self.events.withLock { $0.append(event) } } }
}

extension Array where Element: Equatable {
    /// Whether `steps` occur in this order (other events may come between them).
    func inOrder(_ steps: [Element]) -> Bool {
        var rest = steps[...]
        for event in self where event == rest.first { rest = rest.dropFirst() }
        return rest.isEmpty
    }
}

@Suite("Nearby pay and receive flows")
struct NearbyFlowTests {
    @Test func aPaymentReportsItsStepsInOrderOnBothSides() async throws {
        let pair = try NearbyPair()
        let network = SimulatedNetwork(.init(mtu: 185))
        let nearby = try pair.receiveFlow.createRequest(amount: 3_000, payeeName: "stall", hints: [.tcp("127.0.0.1:1")])
        let payerSteps = Recorder<NearbyProgress>()
        let payeeSteps = Recorder<NearbyReceiveProgress>()
        async let served = pair.receiveFlow.serve(nearby, on: network, progress: payeeSteps.sink)
        let paid = try await pair.payFlow.pay(nearby.request, dialer: network, progress: payerSteps.sink)
        let received = try await served

        #expect(paid.payment.status == .completed)
        #expect(paid.payment.amount == 3_000 && received.payment.amount == 3_000)
        #expect(received.payment.id == paid.payment.id)
        #expect(received.transcriptHash == paid.transcriptHash)
        #expect(try pair.payer.balance().spendable == 7_000)
        #expect(try pair.payee.balance().unsettled == 3_000)

        let steps = payerSteps.all
        #expect(steps.first == .signed(paymentID: paid.payment.id, bytes: paid.bundle.count))
        #expect(steps.last == .paid)
        #expect(
            steps.inOrder([
                .signed(paymentID: paid.payment.id, bytes: paid.bundle.count), .connecting, .handshake, .waitingForReceipt, .paid,
            ]))
        // Byte progress: k of n with n the whole session stream and k rising.
        let sending = steps.compactMap { step -> (Int, Int)? in
            if case .sending(let k, let n) = step { return (k, n) }
            return nil
        }
        // At MTU 185 the payment takes several frames, each one a step.
        #expect(sending.count >= 2)
        #expect(sending.allSatisfy { $0.1 > paid.bundle.count && $0.0 < $0.1 })
        #expect(zip(sending, sending.dropFirst()).allSatisfy { $0.0 < $1.0 })
        #expect(!steps.contains { if case .resumed = $0 { true } else { false } })

        let theirs = payeeSteps.all
        #expect(theirs.first == .listening)
        #expect(
            theirs.inOrder([
                .listening, .payerConnected(link: 1), .verified(amount: 3_000, paymentID: paid.payment.id), .receiptSent,
            ]))
        #expect(theirs.contains { if case .receiving(let k) = $0 { k > 0 } else { false } })
    }

    @Test func aCutLinkResumesWithTheSameSignedBytes() async throws {
        let pair = try NearbyPair()
        // The first link dies after two frames: mid-payment at MTU 185.
        let network = SimulatedNetwork(.init(mtu: 185, cutAfterFrames: [0: 2]))
        let nearby = try pair.receiveFlow.createRequest(amount: 1_250, hints: [.tcp("127.0.0.1:1")])
        let steps = Recorder<NearbyProgress>()
        async let served = pair.receiveFlow.serve(nearby, on: network)
        let paid = try await pair.payFlow.pay(nearby.request, dialer: network, progress: steps.sink)
        let received = try await served

        #expect(paid.reconnects >= 1)
        #expect(steps.all.inOrder([.connecting, .handshake, .resumed(link: 2), .waitingForReceipt, .paid]))
        // The wallet signed once: asked again for this request it returns the bytes that went out.
        #expect(try pair.payer.pay(nearby.request, method: .tcp).bundle == paid.bundle)
        #expect(received.payment.id == paid.payment.id)
        #expect(try pair.payee.history().count == 1)
        #expect(try pair.payee.balance().unsettled == 1_250)
    }

    @Test func aRefusalIsSignedAndKeptButNotWorthRetrying() async throws {
        let pair = try NearbyPair()
        let network = SimulatedNetwork(.init(mtu: 185))
        let refusing = NearbyReceiveFlow(
            wallet: pair.payee, options: NearbyPair.options, accept: { _, _ in throw WalletError.requestExpired })
        let nearby = try refusing.createRequest(amount: 500, hints: [.tcp("127.0.0.1:1")])
        let payeeSteps = Recorder<NearbyReceiveProgress>()
        async let served: NearbyReceiveError? = {
            do {
                _ = try await refusing.serve(nearby, on: network, progress: payeeSteps.sink)
                return nil
            } catch let error as NearbyReceiveError { return error } catch { return nil }
        }()
        var failure: NearbyPayError?
        do { _ = try await pair.payFlow.pay(nearby.request, dialer: network) } catch { failure = error }
        network.close()
        let error = try #require(failure)
        guard case .signedAndKept = error.outcome, case .session(.refused(let code, _)) = error.cause else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(code == WalletError.requestExpired.code)
        #expect(!error.canTryAgain)
        let theirs = try #require(await served)
        #expect(theirs.outcome == .nothingReceived)
        #expect(
            payeeSteps.all.contains(
                .refused(code: WalletError.requestExpired.code, message: WalletError.requestExpired.description)))
        #expect(try pair.payee.balance().unsettled == 0)
    }

    @Test func aTimeoutSaysSignedAndKeptAndTryingAgainResendsTheSameBytes() async throws {
        let pair = try NearbyPair()
        let nearby = try pair.receiveFlow.createRequest(amount: 800, hints: [.tcp("127.0.0.1:1")])
        // Nobody serves this network: the payer's frames go unanswered.
        let silent = SimulatedNetwork(.init(mtu: 185))
        let impatient = NearbyPayFlow(
            wallet: pair.payer, options: SessionOptions(retransmitAfter: .milliseconds(30), timeout: .milliseconds(300)))
        var failure: NearbyPayError?
        do { _ = try await impatient.pay(nearby.request, dialer: silent) } catch { failure = error }
        silent.close()
        let error = try #require(failure)
        let signed = try #require(try pair.payer.outgoingPayment(for: nearby.request.nonce))
        #expect(error.outcome == .signedAndKept(paymentID: signed.id))
        guard case .session(.timedOut) = error.cause else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(error.canTryAgain)
        #expect(error.description.contains("signed and kept"))

        // "Try again": the same request over a link that works carries the same signed bytes.
        let network = SimulatedNetwork(.init(mtu: 185))
        async let served = pair.receiveFlow.serve(nearby, on: network)
        let paid = try await pair.payFlow.pay(nearby.request, dialer: network)
        _ = try await served
        #expect(paid.bundle == signed.bundle)
        #expect(try pair.payer.balance().spendable == 9_200)
    }

    @Test func anOpenRequestNeedsAnAmountBeforeAnythingIsSigned() async throws {
        let pair = try NearbyPair()
        let network = SimulatedNetwork(.init(mtu: 185))
        let nearby = try pair.receiveFlow.createRequest(amount: 0, payeeName: "tips", hints: [.tcp("127.0.0.1:1")])
        var failure: NearbyPayError?
        do { _ = try await pair.payFlow.pay(nearby.request, dialer: network) } catch { failure = error }
        let error = try #require(failure)
        #expect(error.outcome == .nothingSigned)
        guard case .wallet(.amountRequired) = error.cause else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(!error.canTryAgain)
        #expect(network.counters.links == 0)

        async let served = pair.receiveFlow.serve(nearby, on: network)
        let paid = try await pair.payFlow.pay(nearby.request, amount: 450, dialer: network)
        #expect(try await served.payment.amount == 450)
        #expect(paid.payment.amount == 450)
    }

    @Test func aFetchedRequestForAnotherKeyIsRefusedBeforeSigning() async throws {
        let pair = try NearbyPair()
        let network = SimulatedNetwork(.init(mtu: 185))
        let nearby = try pair.receiveFlow.createRequest(amount: 600, hints: [.tcp("127.0.0.1:1")])
        async let served = pair.receiveFlow.serve(nearby, on: network)

        var failure: NearbyPayError?
        do { _ = try await pair.payFlow.pay(listenerAt: network, payee: "0123456789abcdef") } catch { failure = error }
        let error = try #require(failure)
        #expect(error.outcome == .nothingSigned)
        guard case .payeeMismatch(let expected, let found) = error.cause else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(expected == "0123456789abcdef" && found == pair.payee.publicKey.keyID)
        #expect(error.description.contains("Nothing was signed"))
        #expect(try pair.payer.outgoingPayment(for: nearby.request.nonce) == nil)
        #expect(try pair.payer.balance().spendable == 10_000)

        // No key id at all is refused the same way; the right one pays.
        await #expect(throws: NearbyPayError.self) { _ = try await pair.payFlow.pay(listenerAt: network, payee: nil) }
        let steps = Recorder<NearbyProgress>()
        let paid = try await pair.payFlow.pay(listenerAt: network, payee: pair.payee.publicKey.keyID.hex, progress: steps.sink)
        _ = try await served
        #expect(paid.payment.amount == 600)
        #expect(steps.all.first == .fetchingRequest)
    }
}

@Suite("Wallet.receive finds the request")
struct ReceiveFindsTheRequestTests {
    @Test func aScannedPaymentIsMatchedToThisWalletsRequest() throws {
        let pair = try NearbyPair()
        let request = try pair.payee.createRequest(amount: 2_000)
        let payment = try pair.payer.pay(request)
        let received = try pair.payee.receive(payment.bundle, method: .qr)
        #expect(received.nonce == request.nonce && received.amount == 2_000)
        // The same payment again: the same receipt.
        #expect(try pair.payee.receive(payment.bundle) == received)
        #expect(try pair.payer.confirm(receipt: received.receipt.encoded).status == .completed)
    }

    @Test func aPaymentForARequestThisWalletNeverMadeIsRefused() throws {
        let pair = try NearbyPair()
        // The payer's own third party: a request made by another wallet.
        let other = try Wallet.create(directory: pair.root + "/other", keyCost: .testing)
        try other.installTrust(
            authority: pair.issuer.authority.publicKey, keyset: pair.issuer.keyset.encoded, limits: pair.issuer.limits.encoded)
        let request = try other.createRequest(amount: 1_000)
        let payment = try pair.payer.pay(request)
        #expect(throws: WalletError.unknownRequest(request.nonce)) { try pair.payee.receive(payment.bundle, method: .qr) }
        #expect(try pair.payee.balance().unsettled == 0)
        // Bytes that are no payment at all are rejected, not looked up.
        #expect { try pair.payee.receive([0x01, 0x02, 0x03]) } throws: { error in
            if case WalletError.rejected = error { true } else { false }
        }
    }
}
