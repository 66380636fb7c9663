import ArgumentParser
import Crypto
import Foundation
import NearbySession
import NearbyTCP
import OfflineNotes
import Synchronization
import WalletCore
import WalletFlows

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct RequestPayment: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request", abstract: "Ask to be paid by QR: shows the request as a QR code (terminal, --png) and as text.")
    @OptionGroup var common: CommonOptions
    @Argument(help: "Amount, e.g. 30.00; leave out to let the payer choose.") var amount: String?
    @Option(help: "Name shown to the payer.") var name = ""
    @Option(help: "Seconds the request stays payable (1 to \(OptionRange.maxRequestSeconds), a week).") var expires: UInt64 = 600
    @Option(help: "Write the QR code to this PNG file.") var png: String?

    func validate() throws {
        try OptionRange.check(expires, "--expires", 1...OptionRange.maxRequestSeconds, unit: "seconds")
        try OptionRange.checkName(name)
    }

    func run() async throws {
        try await WalletCLI.run(common) { out in
            let wallet = try common.home.openWallet()
            let limits = try wallet.limits()
            let currency = limits.currency
            let value = try amount.map { try MoneyText.parse($0, currency: currency) } ?? 0
            try OptionRange.checkRequested(value, limit: limits.maxOfflineHolding, currency: currency)
            let request = try wallet.createRequest(
                amount: value, payeeName: name, expiresIn: expires, hints: [.init(kind: .qr, value: [])])
            let shown = try Codes.show(request.encoded, png: png, output: out, title: "Payment request")
            out.result(
                [
                    "request": shown.frames, "files": shown.files, "nonce": request.nonce.hex, "amount": value,
                    "expiresAt": request.expiresAt,
                ],
                human: """
                    Request for \(value == 0 ? "any amount" : MoneyText.format(value, currency)) (nonce \(request.nonce.hex.prefix(8))…, valid \(expires) s)\(shown.files.isEmpty ? "" : "\nQR written to \(shown.files.joined(separator: ", "))")
                    \(shown.frames.joined(separator: "\n"))
                    Payer: wallet pay <this text or the PNG> --via qr
                    """)
        }
    }
}

struct Pay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Pay a request offline: --via qr shows the payment as QR codes; --via nearby sends it over the request's session and waits for the receipt."
    )
    enum Via: String, ExpressibleByArgument { case qr, nearby }

    @OptionGroup var common: CommonOptions
    @Argument(
        help: "The request: its QR text, a text file, PNG image(s), or the HOST:PORT of a payee listening nearby (with --payee).")
    var request: [String]
    @Option(help: "With a HOST:PORT request: the payee's whole key id (16 hex digits) or key, as its screen shows it.")
    var payee: String?
    @Option(help: "qr or nearby (default: nearby when the request offers a session).") var via: Via?
    @Option(help: "Amount for an open-amount request.") var amount: String?
    @Option(help: "Write the payment's QR code(s) to this PNG file (name-1.png … when several).") var png: String?
    @Option(help: "Seconds to wait for the payee over a nearby session (1 to \(Int(OptionRange.maxWaitSeconds))).") var timeout:
        Double = 60

    func validate() throws {
        try OptionRange.check(timeout, "--timeout", 1...OptionRange.maxWaitSeconds)
    }

    func run() async throws {
        try await WalletCLI.run(common) { out in
            let home = common.home
            let wallet = try home.openWallet()
            let currency = try wallet.limits().currency
            let parsed: PaymentRequest
            let given = Self.sessionAddress(request)
            if let address = given {
                parsed = try await Outcome.nothingSigned {
                    let expected = try NearbyPayFlow.expectedPayee(payee)
                    out.note("asking \(address.host):\(address.port) for its request…")
                    // The network is not the payee's screen: the flow keeps the request only if
                    // its key matches the one the user read from the payee.
                    return try await home.unlocked {
                        try await NearbyPayFlow.fetchRequest(
                            from: TCPLink.dialer(host: address.host, port: address.port), payee: expected,
                            timeout: .milliseconds(Int64(timeout * 1000)))
                    }
                }
            } else {
                do { parsed = try PaymentRequest(decoding: try Codes.read(request)) } catch let e as VerificationError {
                    throw CLIError("invalid_request", "This is not a payment request (\(e)).", exit: .input)
                }
            }
            // The address the user gave beats the one the request advertises.
            // The first well-formed TCP hint: a malformed one is ignored like an unknown kind
            // (docs/protocol.md §4.5), not taken and then refused.
            let tcpHint =
                given.map { "\($0.host):\($0.port)" }
                ?? parsed.hints.lazy.compactMap(\.tcpAddress).first.map {
                    $0.host.contains(":") ? "[\($0.host)]:\($0.port)" : "\($0.host):\($0.port)"
                }
            let method = via ?? (parsed.sessionKey != nil && tcpHint != nil ? .nearby : .qr)
            let value = try amount.map { try MoneyText.parse($0, currency: currency) }
            let who = parsed.payeeNameShown.map { "\($0) (key \(parsed.payee.keyID))" } ?? "key \(parsed.payee.keyID)"

            switch method {
            case .qr:
                let payment = try await Outcome.nothingSigned { try wallet.pay(parsed, amount: value, method: .qr) }
                out.note(
                    "payment \(payment.id.hex) signed: \(payment.bundle.count) bytes, sha256 \(bundleHash(payment.bundle)); inputs reserved until the receipt comes back"
                )
                let shown = try await Outcome.signedAndKept(show: true) {
                    try Codes.show(payment.bundle, png: png, output: out, title: "Payment")
                }
                out.result(
                    [
                        "paymentId": payment.id.hex, "bundleSha256": bundleHash(payment.bundle), "amount": payment.amount,
                        "bytes": payment.bundle.count, "payment": shown.frames, "files": shown.files,
                        "status": payment.status.rawValue,
                    ],
                    human: """
                        Paying \(MoneyText.format(payment.amount, currency)) to \(who).\(shown.files.isEmpty ? "" : "\nQR written to \(shown.files.joined(separator: ", "))")
                        \(shown.frames.joined(separator: "\n"))
                        Show this to the payee, then: wallet confirm <the payee's receipt>
                        """)
            case .nearby:
                guard parsed.sessionKey != nil, let address = tcpHint, let (host, port) = TCPLink.parse(address: address) else {
                    throw CLIError(
                        "not_nearby_request", "This request offers no nearby session. Pay it with --via qr. Nothing was signed.",
                        exit: .usage)
                }
                let flow = NearbyPayFlow(wallet: wallet, options: SessionOptions(timeout: .milliseconds(Int64(timeout * 1000))))
                let payment = try await Outcome.nothingSigned { try flow.sign(parsed, amount: value) }
                out.note(
                    "payment \(payment.id.hex) signed: \(payment.bundle.count) bytes, sha256 \(bundleHash(payment.bundle)) (asked again, the wallet returns these same bytes)"
                )
                out.note("connecting to \(address)…")
                let dialer = FaultInjection.dialer(TCPLink.dialer(host: host, port: port))
                // The payment is signed and recorded: the database is not needed while the phones talk.
                let session = try await Outcome.signedAndKept {
                    try await home.unlocked {
                        try await flow.send(payment, dialer: dialer) { progress in
                            switch progress {
                            case .sending(let sent, let total): out.note("  sent \(sent)/\(total) bytes")
                            case .waitingForReceipt: out.note("  all bytes sent; waiting for the receipt")
                            case .resumed(let link): out.note("  link lost; resuming on link \(link)")
                            default: break
                            }
                        }
                    }
                }
                let result = try await Outcome.signedAndKept { try flow.confirm(payment, session: session) }
                let done = result.payment
                out.result(
                    [
                        "paymentId": done.id.hex, "bundleSha256": bundleHash(payment.bundle), "amount": done.amount,
                        "status": done.status.rawValue, "transcriptHash": result.transcriptHash.hex,
                        "reconnects": result.reconnects, "restarts": result.restarts,
                    ],
                    human:
                        "Paid \(MoneyText.format(done.amount, currency)) to \(who): receipt verified (session \(result.transcriptHash.hex.prefix(16))…)."
                )
            }
        }
    }
}

/// Hex SHA-256 of the signed payment bytes: equal across retries because the wallet never re-signs.
func bundleHash(_ bundle: [UInt8]) -> String {
    SHA256.hash(data: bundle).map { String(format: "%02x", $0) }.joined()
}

extension Pay {
    /// `HOST:PORT` given instead of a request (and not a file of that name).
    static func sessionAddress(_ inputs: [String]) -> (host: String, port: Int)? {
        guard inputs.count == 1, let text = inputs.first, !text.hasPrefix("OW:"), !FileManager.default.fileExists(atPath: text)
        else {
            return nil
        }
        return TCPLink.parse(address: text)
    }
}

struct Receive: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Get paid: --listen HOST:PORT shows a nearby request and waits for the payer; otherwise reads payment QR codes (text or PNG) and shows the receipt."
    )
    @OptionGroup var common: CommonOptions
    @Argument(help: "Payment QR text, text files or PNG images (QR mode); the amount with --listen.") var inputs: [String] = []
    @Option(help: "Listen for a nearby session on HOST:PORT (port 0 picks one).") var listen: String?
    @Option(help: "The HOST:PORT payers should dial, when it differs from --listen (e.g. listening on 0.0.0.0).") var advertise:
        String?
    @Option(help: "Name shown to the payer (--listen).") var name = ""
    @Option(help: "Write the request (--listen) or the receipt (QR mode) as PNG here.") var png: String?
    @Option(help: "Also write the request's text to this file (--listen), for scripts.") var requestOut: String?
    @Option(help: "Seconds to wait for a payer (--listen; 1 to \(Int(OptionRange.maxWaitSeconds))).") var timeout: Double = 300

    func validate() throws {
        try OptionRange.check(timeout, "--timeout", 1...OptionRange.maxWaitSeconds)
        try OptionRange.checkName(name)
    }

    func run() async throws {
        try await WalletCLI.run(common) { out in
            let wallet = try common.home.openWallet()
            let currency = try wallet.limits().currency
            if let listen {
                try await listenForPayment(wallet, currency: currency, address: listen, out: out)
            } else {
                try await readPayment(wallet, currency: currency, out: out)
            }
        }
    }

    private func readPayment(_ wallet: Wallet, currency: Currency, out: Output) async throws {
        guard !inputs.isEmpty else {
            throw CLIError("no_input", "Give the payment's QR text or PNG file(s), or --listen HOST:PORT.", exit: .usage)
        }
        let bundleBytes = try Codes.read(inputs)
        // Checked here for this command's own message; the wallet finds the request itself.
        do { _ = try PaymentBundle(decoding: bundleBytes) } catch {
            throw CLIError("invalid_payment", "This is not a payment (\(error)).", exit: .rejected)
        }
        let received = try wallet.receive(bundleBytes, method: .qr)
        let shown = try Codes.show(received.receipt.encoded, png: png, output: out, title: "Receipt")
        out.result(
            ["paymentId": received.id.hex, "amount": received.amount, "receipt": shown.frames, "files": shown.files],
            human: """
                Received \(MoneyText.format(received.amount, currency)) offline (verified; settle it with wallet sync).\(shown.files.isEmpty ? "" : "\nReceipt QR written to \(shown.files.joined(separator: ", "))")
                \(shown.frames.joined(separator: "\n"))
                Show the receipt to the payer: wallet confirm <receipt>
                """)
    }

    private func listenForPayment(_ wallet: Wallet, currency: Currency, address: String, out: Output) async throws {
        guard let (host, port) = TCPLink.parse(address: address) else {
            throw CLIError("invalid_address", "'\(address)' is not HOST:PORT.", exit: .usage)
        }
        guard inputs.count <= 1 else { throw CLIError("usage", "With --listen, give at most the amount.", exit: .usage) }
        let value = try inputs.first.map { try MoneyText.parse($0, currency: currency) } ?? 0
        try OptionRange.checkRequested(value, limit: try wallet.limits().maxOfflineHolding, currency: currency)
        let listener = try await TCPLink.listen(host: host, port: port)
        defer { listener.close() }
        let bound = "\(host):\(listener.port ?? port)"
        if let advertise, TCPLink.parse(address: advertise) == nil {
            throw CLIError("invalid_address", "'\(advertise)' is not HOST:PORT.", exit: .usage)
        }
        let reachable = advertise ?? bound
        let home = common.home
        let kept = KeptFlag()
        let flow = NearbyReceiveFlow(
            wallet: wallet, options: SessionOptions(timeout: .milliseconds(Int64(timeout * 1000))),
            // Waiting for a payer can take minutes: other commands may use the wallet meanwhile;
            // the lock is taken again only to store the payment.
            accept: { bundle, transcript in
                try home.locked { try wallet.receive(bundle, method: .tcp, transcriptHash: transcript) }
            },
            refusal: { error in
                let reason = CLIError.from(error)
                return (reason.code, reason.description)
            })
        // The session key lives in this process only: the request is good for this listener.
        let nearby = try flow.createRequest(
            amount: value, payeeName: name, expiresIn: UInt64(max(60, timeout)), hints: [.tcp(reachable)])
        let request = nearby.request
        let shown = try Codes.show(request.encoded, png: png, output: out, title: "Nearby payment request", interactive: false)
        if let requestOut {
            guard
                FileManager.default.createFile(
                    atPath: requestOut, contents: Data((shown.frames.joined(separator: "\n") + "\n").utf8))
            else {
                throw CLIError("storage", "Cannot write \(requestOut).", exit: .failure)
            }
        }
        out.note("Waiting for a payer on \(bound) for \(value == 0 ? "any amount" : MoneyText.format(value, currency))…")
        out.note("Payers can scan the request, or run: wallet pay \(reachable) --payee \(wallet.publicKey.keyID)")
        out.note(shown.frames.joined(separator: "\n"))
        let result: NearbyReceiveResult
        do {
            result = try await home.unlocked {
                try await flow.serve(nearby, on: listener) { progress in
                    switch progress {
                    case .verified(let amount, _):
                        kept.value.withLock { $0 = true }
                        out.note("payment verified: \(MoneyText.format(amount, currency)); sending the receipt")
                    case .refused(_, let message):
                        out.note("payment refused: \(message)")
                    default:
                        break
                    }
                }
            }
        } catch {
            let cause = CLIError.from((error as? NearbyReceiveError)?.cause ?? error)
            let outcome =
                kept.value.withLock { $0 }
                ? "The payment was verified and kept in this wallet; the payer gets the receipt by running the same wallet pay again (listen again with a new request if needed)."
                : "Nothing was received; nothing in this wallet changed."
            throw CLIError(cause.code, sentences(cause.description, outcome), exit: cause.exit)
        }
        let receipt = result.receipt
        out.result(
            [
                "amount": receipt.amount, "paymentId": receipt.paymentID.hex, "payeeKeyId": wallet.publicKey.keyID.hex,
                "transcriptHash": result.transcriptHash.hex, "links": result.links, "nonce": request.nonce.hex,
            ],
            human:
                "Received \(MoneyText.format(receipt.amount, currency)) over a nearby session (verified offline; settle with wallet sync)."
        )
    }
}

struct Confirm: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record the payee's receipt (QR text or PNG): the payment is complete.")
    @OptionGroup var common: CommonOptions
    @Argument(help: "Receipt QR text, text file or PNG image(s).") var receipt: [String]

    func run() async throws {
        try await WalletCLI.run(common) { out in
            let wallet = try common.home.openWallet()
            let currency = try wallet.limits().currency
            let payment = try wallet.confirm(receipt: try Codes.read(receipt))
            out.result(
                ["paymentId": payment.id.hex, "amount": payment.amount, "status": payment.status.rawValue],
                human: "Receipt verified: \(MoneyText.format(payment.amount, currency)) paid.")
        }
    }
}

/// Test-only fault injection for the end-to-end script: `OW_TEST_KILL_AFTER_FRAMES=N` makes
/// this process SIGKILL itself right after writing its N-th session frame, as a phone that
/// dies mid-payment would. Unset, the dialer is returned untouched.
enum FaultInjection {
    static func dialer(_ inner: some LinkDialer) -> any LinkDialer {
        guard let text = ProcessInfo.processInfo.environment["OW_TEST_KILL_AFTER_FRAMES"], let limit = Int(text), limit > 0 else {
            return inner
        }
        return KillingDialer(inner: inner, limit: limit)
    }

    struct KillingDialer: LinkDialer {
        let inner: any LinkDialer
        let limit: Int
        func connect() async throws -> any LinkConnection { KillingLink(inner: try await inner.connect(), limit: limit) }
    }

    final class KillingLink: LinkConnection, @unchecked Sendable {
        let inner: any LinkConnection
        let limit: Int
        private let lock = NSLock()
        private var sent = 0
        init(inner: any LinkConnection, limit: Int) {
            self.inner = inner
            self.limit = limit
        }
        // Bluetooth-sized frames, so "after N frames" lands in the middle of the payment.
        var mtu: Int { min(inner.mtu, 185) }
        func send(_ frame: [UInt8]) async throws {
            try await inner.send(frame)
            let count = lock.withLock {
                sent += 1
                return sent
            }
            if count >= limit {
                try? await Task.sleep(for: .milliseconds(50))  // let the frame leave the socket
                kill(getpid(), SIGKILL)
            }
        }
        func inbound() -> AsyncThrowingStream<[UInt8], any Error> { inner.inbound() }
        func close() { inner.close() }
    }
}

/// Set once the listener stored a payment (shared with the session's answer callback).
final class KeptFlag: Sendable {
    let value = Mutex(false)
}

/// Failure messages that say whether anything was signed, so the user knows whether paying
/// again would resend the same payment or start a new one.
enum Outcome {
    static let nothingSignedText = "Nothing was signed; nothing left this wallet."

    /// Before the payment is signed: a failure changed nothing.
    static func nothingSigned<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw annotate(error, nothingSignedText) }
    }

    /// After the payment is signed and recorded: it is kept, and asking again returns the same bytes.
    static func signedAndKept<T>(show: Bool = false, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw annotate(error, keptText(show: show)) }
    }

    static func keptText(show: Bool) -> String {
        show
            ? "The payment was signed and kept: run the same `wallet pay` again to show the same bytes."
            : "The payment was signed and kept: run the same `wallet pay` again to resend the same bytes."
    }

    static func annotate(_ error: any Error, _ outcome: String) -> CLIError {
        let cause = (error as? NearbyPayError)?.cliCause ?? CLIError.from(error)
        // Resending to a payee that refused would be refused again.
        let outcome =
            cause.code == "payee_refused" && outcome != nothingSignedText
            ? "The payment was signed and is kept in this wallet; wallet sync asks the issuer what became of it."
            : outcome
        return CLIError(cause.code, sentences(cause.description, outcome), exit: cause.exit)
    }
}

extension NearbyPayError {
    /// This command's code and exit status for the cause; `Outcome` adds the sentence about
    /// what was signed.
    var cliCause: CLIError {
        switch cause {
        case .payeeKeyRequired: CLIError("payee_required", reason, exit: .usage)
        case .payeeMismatch: CLIError("payee_mismatch", reason, exit: .refused)
        case .wallet(let error): CLIError.from(error)
        case .session(let error): CLIError.from(error)
        }
    }
}
