import ArgumentParser
import Foundation
import WalletFlows
import WalletHTTPS
import WalletSync

/// `--server-ca FILE` / `--server-pin sha256/BASE64` on `init`, `register` and `login`: how the
/// wallet trusts an https issuer. Saved in `config.json`, so every later command trusts the
/// server the same way; neither given and none saved: the system's certificate authorities.
struct ServerTrustOptions: ParsableArguments {
    @Option(
        name: .customLong("server-ca"),
        help: "Trust only certificates issued by this authority (PEM file) for the https issuer (saved).")
    var serverCA: String?

    @Option(
        help:
            "Pin the https issuer's public key: sha256/BASE64 of its SubjectPublicKeyInfo, as wallet-server logs it at start (saved)."
    )
    var serverPin: String?

    /// Checks the options and writes them into the settings: a new pin replaces a saved CA and
    /// the other way round. Returns whether anything changed.
    func apply(to config: inout CLIConfig) throws -> Bool {
        if serverCA != nil, serverPin != nil {
            throw CLIError(
                "usage", "Give --server-ca or --server-pin, not both: a pin already names the one key to trust.", exit: .usage)
        }
        if let serverPin {
            guard let pin = ServerKeyPin(serverPin) else {
                throw CLIError(
                    "invalid_pin",
                    "--server-pin '\(serverPin)' is not sha256/ followed by the base64 of 32 bytes. Get it as: \(ServerKeyPin.howTo)",
                    exit: .usage)
            }
            config.serverPin = pin.description
            config.serverCA = nil
            return true
        }
        if let serverCA {
            guard let data = FileManager.default.contents(atPath: serverCA) else {
                throw CLIError("unreadable_file", "Cannot read the server CA file \(serverCA).", exit: .input)
            }
            // Checked now, so a wrong file is named here rather than at the next command.
            _ = try HTTPSTransport(trust: .certificateAuthority(pem: Array(data)))
            config.serverCA = String(decoding: data, as: UTF8.self)
            config.serverPin = nil
            return true
        }
        return false
    }
}

extension WalletHome {
    /// The issuer client every online command uses, trusting the server as `config.json` says.
    /// (Not URLSession: on Linux it cannot verify against a CA file or a pin; see `HTTPSTransport`.)
    func clientFactory(_ config: CLIConfig) throws -> IssuerClientFactory {
        let trust: ServerTrust
        if let text = config.serverPin {
            guard let pin = ServerKeyPin(text) else {
                throw CLIError(
                    "corrupt_config",
                    "\(configPath) holds serverPin '\(text)', which is not sha256/BASE64. Fix it, or run wallet login --server-pin PIN EMAIL.",
                    exit: .input)
            }
            trust = .publicKey(pin)
        } else if let pem = config.serverCA {
            trust = .certificateAuthority(pem: Array(pem.utf8))
        } else {
            trust = .system
        }
        let transport = try HTTPSTransport(trust: trust)
        return { IssuerClient(serverURL: $0, transport: transport) }
    }

    /// `clientFactory` for the saved settings.
    func clientFactory() throws -> IssuerClientFactory { try clientFactory(try loadConfig()) }
}
