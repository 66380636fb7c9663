import ArgumentParser
import Foundation
import NearbySession
import OfflineNotes
import QRPayload
import WalletCore
import WalletFlows
import WalletHTTPS
import WalletSync

#if canImport(QRImage)
import QRImage
#endif

/// Options every command takes.
struct CommonOptions: ParsableArguments {
    @Option(name: .long, help: "Wallet directory (default: $XDG_DATA_HOME/offline-wallet, or ~/.local/share/offline-wallet).")
    var wallet: String?

    @Flag(name: .long, help: "Print one JSON object instead of human text (for scripts).")
    var json = false

    var home: WalletHome { WalletHome(directory: wallet) }

    /// ` --wallet DIR` when the command was given one (empty otherwise): commands printed for
    /// the user to paste next must name the same wallet.
    var walletArgument: String { wallet.map { " --wallet \(shellWord($0))" } ?? "" }
}

/// `text` as one shell word: as it is when it holds only characters no shell treats
/// specially, else in single quotes.
func shellWord(_ text: String) -> String {
    let plain =
        !text.isEmpty
        && text.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "/._-+:@%,=".unicodeScalars.contains($0) }
    return plain ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// Exit statuses; documented in the README and `wallet --help`.
enum Exit: Int32 {
    case ok = 0
    case failure = 1
    case usage = 2
    /// The wallet refused: not enough money, expired request, limits, wrong passphrase …
    case refused = 3
    /// The issuer could not be reached.
    case offline = 4
    /// The issuer answered with an error (validation, frozen account …).
    case server = 5
    /// An incoming payment is invalid or a double spend.
    case rejected = 6
    /// The nearby session failed; the payment is kept and can be sent again.
    case session = 7
    /// Not logged in, or the login expired.
    case login = 8
    /// A file or code could not be read.
    case input = 9
}

/// An error the command line reports: what happened, what to do, and the exit status.
struct CLIError: Error, CustomStringConvertible {
    let code: String
    let description: String
    let exit: Exit

    init(_ code: String, _ description: String, exit: Exit) {
        self.code = code
        self.description = description
        self.exit = exit
    }

    /// The command line's error for `error`. `walletArgument` (` --wallet DIR`, or empty) goes
    /// into the commands the message suggests, so they work when pasted.
    static func from(_ error: any Error, walletArgument: String = "") -> CLIError {
        let w = walletArgument
        switch error {
        case let e as CLIError: return e
        case let e as WalletError:
            switch e {
            case .rejected, .doubleSpendDetected: return CLIError(e.code, e.description, exit: .rejected)
            case .storage: return CLIError(e.code, e.description, exit: .failure)
            // A damaged key file or backup is an unreadable file, whichever command opens it.
            case .corruptFile: return CLIError(e.code, e.description, exit: .input)
            default: return CLIError(e.code, e.description, exit: .refused)
            }
        case let e as NearbyError:
            switch e {
            // Its own code: the payee's (e.g. double_spend, exit 6 on the payee's side) would
            // otherwise mean two exit statuses for one code.
            case .refused(let code, let message):
                return CLIError("payee_refused", "The payee refused the payment (\(code)): \(message)", exit: .refused)
            default: return CLIError(e.code, e.description, exit: .session)
            }
        case let e as WalletFlowError:
            switch e {
            case .noServer, .invalidServer:
                return CLIError(
                    "no_server",
                    "No issuer configured. Set it and log in: wallet login\(w) --server URL EMAIL (a new account: wallet register\(w) --server URL EMAIL).",
                    exit: .login)
            case .notLoggedIn: return CLIError(e.code, "Not logged in. Run: wallet login\(w) EMAIL", exit: .login)
            case .loginExpired:
                return CLIError(e.code, "The login has expired or was revoked. Run: wallet login\(w) EMAIL", exit: .login)
            }
        case let e as FlowStoreError:
            if case .corrupt = e { return CLIError(e.code, e.description, exit: .input) }
            return CLIError(e.code, e.description, exit: .failure)
        case let e as IssuerClientError:
            if e.isUnreachable { return CLIError(e.code, e.description, exit: .offline) }
            if e.status == 401 { return CLIError(e.code, "\(e.description) Log in again: wallet login\(w) EMAIL", exit: .login) }
            if e.status == 0 { return CLIError(e.code, e.description, exit: .server) }
            return CLIError(e.code, e.description, exit: .server)
        // The server is not the one this wallet trusts (or the trust settings are unusable):
        // nothing was sent; retrying will not help, so not "unreachable".
        case let e as ServerTrustError:
            if case .protocolMismatch = e { return CLIError(e.code, e.description, exit: .offline) }
            return CLIError(e.code, e.description, exit: e.code == "untrusted_server" ? .server : .usage)
        case let e as QRFrames.Error:
            return CLIError("unreadable_code", "The QR frames could not be read (\(e)). Scan them again.", exit: .input)
        case let e as VerificationError:
            return CLIError(e.code, "\(e)", exit: .rejected)
        default:
            let ns = error as NSError
            if ns.domain == NSURLErrorDomain {
                return CLIError(
                    "server_unreachable",
                    "Cannot reach the issuer (\(ns.localizedDescription)). Check the address and your network, then try again.",
                    exit: .offline)
            }
            #if canImport(QRImage)
            if let e = error as? QRImageError { return CLIError("unreadable_image", e.description, exit: .input) }
            #endif
            return CLIError("unexpected", "\(error)", exit: .failure)
        }
    }
}

/// `first` and `second` as two sentences: a space after a full stop, a new line after text
/// that ends in a command to paste (`… run: wallet sync`), so the next sentence is not read as
/// part of it.
func sentences(_ first: String, _ second: String) -> String {
    guard let last = first.last else { return second }
    return ".!?)".contains(last) ? "\(first) \(second)" : "\(first)\n\(second)"
}

/// Prints results as text for people or as one JSON object for scripts.
struct Output: Sendable {
    let json: Bool

    /// Progress and notes, on stderr in both modes (stdout stays one JSON object with --json).
    func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    func result(_ object: [String: Any], human: String) {
        if json {
            var object = object
            object["ok"] = true
            print(Self.encode(object))
        } else {
            print(human)
        }
    }

    /// A result that is only part of what was asked (a sync with failed steps): printed like a
    /// result, with the error beside it — one JSON object (`"ok": false`, `"error"`) or the
    /// text on stdout and the error on stderr. The caller then exits with `error.exit`.
    func partial(_ object: [String: Any], human: String, error: CLIError) {
        if json {
            var object = object
            object["ok"] = false
            object["error"] = ["code": error.code, "message": error.description, "exit": Int(error.exit.rawValue)]
            print(Self.encode(object))
        } else {
            print(human)
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
        }
    }

    func failure(_ error: CLIError) {
        if json {
            print(
                Self.encode([
                    "ok": false, "error": ["code": error.code, "message": error.description, "exit": Int(error.exit.rawValue)],
                ]))
        } else {
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
        }
    }

    static func encode(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Runs a command body, turning any error into its message and exit status.
func run(_ options: CommonOptions, _ body: (Output) async throws -> Void) async throws {
    let output = Output(json: options.json)
    do {
        try await body(output)
    } catch let exit as ExitCode {
        throw exit
    } catch {
        let cli = CLIError.from(error, walletArgument: options.walletArgument)
        output.failure(cli)
        throw ExitCode(cli.exit.rawValue)
    }
}

/// Money in and out, in the wallet's currency.
enum MoneyText {
    static func parse(_ text: String, currency: Currency) throws -> UInt64 {
        guard let value = Amount.parse(text, currency: currency), value > 0 else {
            throw CLIError("invalid_amount", "'\(text)' is not an amount in \(currency) (for example 12.50).", exit: .usage)
        }
        return value
    }

    static func format(_ minor: UInt64, _ currency: Currency) -> String {
        "\(Amount.format(minor, currency: currency)) \(currency)"
    }

    static func format(signed minor: Int64, _ currency: Currency) -> String {
        minor < 0 ? "-" + format(minor.magnitude, currency) : format(minor.magnitude, currency)
    }
}

/// Ranges of the numeric options, checked before anything runs (usage errors, exit 2): values
/// outside them would overflow time arithmetic (a crash) or make requests no one can pay.
enum OptionRange {
    /// A request stays payable at most a week: longer, and the payee's note of it outlives
    /// the notes that could pay it.
    static let maxRequestSeconds: UInt64 = 7 * 24 * 3600
    /// Waiting for the other phone: at most an hour.
    static let maxWaitSeconds: Double = 3600

    static func check(_ value: UInt64, _ option: String, _ range: ClosedRange<UInt64>, unit: String) throws {
        guard range.contains(value) else {
            throw ValidationError(
                "\(option) must be between \(range.lowerBound) and \(range.upperBound) \(unit); \(value) is not.")
        }
    }

    static func check(_ value: Double, _ option: String, _ range: ClosedRange<Double>) throws {
        guard value.isFinite, range.contains(value) else {
            throw ValidationError(
                "\(option) must be between \(Int(range.lowerBound)) and \(Int(range.upperBound)) seconds; \(value) is not.")
        }
    }

    /// The payee name a request carries: at most `PaymentRequest.maxNameLength` bytes of UTF-8,
    /// or no payer's wallet would accept the request.
    static func checkName(_ name: String) throws {
        let bytes = name.utf8.count
        guard bytes <= PaymentRequest.maxNameLength else {
            throw ValidationError(
                "--name must be at most \(PaymentRequest.maxNameLength) bytes of UTF-8; this one is \(bytes). Use a shorter name."
            )
        }
    }

    /// A requested amount must fit the wallet's offline holding limit: no wallet could accept
    /// more. A limit of the wallet (from its issuer), not a malformed option: exit 3, as the
    /// README's exit table puts limits.
    static func checkRequested(_ amount: UInt64, limit: UInt64, currency: Currency) throws {
        guard amount <= limit else {
            throw CLIError(
                "amount_above_limit",
                "\(MoneyText.format(amount, currency)) is above the offline holding limit \(MoneyText.format(limit, currency)): no wallet may accept it offline. Ask for less, or use wallet send-online.",
                exit: .refused)
        }
    }
}
