import Crypto
import Foundation

/// How a client decides that an HTTPS server is the issuer it means (docs/server.md,
/// "Transport security"; README, "Pinning the server").
public enum ServerTrust: Sendable, Equatable {
    /// The system's certificate authorities, and the certificate must name the URL's host.
    case system
    /// Only certificates issued by this authority (PEM, one or more certificates), naming the
    /// URL's host: a private CA for a deployment that has no public certificate.
    case certificateAuthority(pem: [UInt8])
    /// Only a server whose certificate carries this public key, whoever issued it and whatever
    /// name it holds: the key is the identity (a self-signed certificate is fine).
    case publicKey(ServerKeyPin)
}

/// A pinned server public key: the SHA-256 of its DER SubjectPublicKeyInfo, written
/// `sha256/BASE64` (the form HPKP and curl's `--pinnedpubkey` use). It survives certificate
/// renewals that keep the key; a new key needs a new pin.
public struct ServerKeyPin: Sendable, Hashable, CustomStringConvertible {
    /// The 32-byte SHA-256 of the SubjectPublicKeyInfo.
    public let sha256: [UInt8]

    /// Parses `sha256/BASE64`; nil for anything else (a wrong length, another hash, not base64).
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("sha256/"), let digest = Data(base64Encoded: String(trimmed.dropFirst(7))), digest.count == 32
        else { return nil }
        sha256 = Array(digest)
    }

    /// The pin of a DER SubjectPublicKeyInfo.
    public init(subjectPublicKeyInfo der: [UInt8]) {
        sha256 = Array(SHA256.hash(data: der))
    }

    public var description: String { "sha256/" + Data(sha256).base64EncodedString() }

    /// How to compute the pin of a running server or a certificate file, for messages.
    public static let howTo =
        "the server logs it at start (\"public-key pin sha256/…\"); or: openssl x509 -in CERT.pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64"
}

/// Why a connection to the issuer was refused before anything was sent: the server is not the
/// one the wallet trusts, or the trust settings are unusable. Nothing was sent, so nothing
/// (a purchase, a redemption) can have happened at the issuer.
public enum ServerTrustError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The certificate does not chain to a trusted authority or does not name the host.
    case untrusted(host: String, reason: String)
    /// The server's public key is not the pinned one.
    case pinMismatch(host: String, expected: ServerKeyPin, presented: ServerKeyPin)
    /// The CA file does not hold a PEM certificate.
    case badAuthority(reason: String)
    /// A pin or CA was given for a plain http:// URL, which has no certificate to check.
    case notHTTPS(url: String)
    /// The server speaks something other than HTTP over this connection (for example plain
    /// HTTP answered on a TLS port, or TLS spoken to a plain port).
    case protocolMismatch(url: String, reason: String)

    public var code: String {
        switch self {
        case .untrusted, .pinMismatch: "untrusted_server"
        case .badAuthority: "bad_server_ca"
        case .notHTTPS: "pin_needs_https"
        case .protocolMismatch: "protocol_mismatch"
        }
    }

    public var description: String {
        switch self {
        case .untrusted(let host, let reason):
            "The server's certificate is not trusted: \(host) presented a certificate that \(reason). Nothing was sent. Pass --server-ca FILE (the authority that issued it) or --server-pin, or check the URL."
        case .pinMismatch(let host, let expected, let presented):
            "The server's public key is not the pinned one: \(host) presented \(presented), the wallet pins \(expected). Nothing was sent. If the issuer changed its key, get the new pin from its operator (\(ServerKeyPin.howTo)); otherwise check the URL: this may not be your issuer."
        case .badAuthority(let reason):
            "The server CA file is not usable: \(reason). Give a PEM certificate (-----BEGIN CERTIFICATE-----)."
        case .notHTTPS(let url):
            "\(url) is plain HTTP: a pin or CA needs an https:// URL (plain HTTP has no certificate to check)."
        case .protocolMismatch(let url, let reason):
            "\(url) did not answer HTTP over this connection (\(reason)). If the server serves HTTPS, use an https:// URL; if it serves plain HTTP, use http://."
        }
    }
}
