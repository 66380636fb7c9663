import ArgumentParser
import Crypto
import Ethereum
import Foundation
import NIOSSL
import X509

/// HTTPS served by `wallet-server` itself (docs/server.md, "Transport security"). Off unless
/// `--tls-cert` is given; then every connection is TLS 1.2 or newer.
struct TLSOptions: ParsableArguments {
    @Option(
        help:
            "Serve HTTPS with this certificate chain: PEM, the server's certificate first, then any intermediates (env WALLET_SERVER_TLS_CERT). Needs --tls-key."
    )
    var tlsCert: String?

    @Option(
        help: "The certificate's private key: PEM, mode 0600 (env WALLET_SERVER_TLS_KEY). Read once at start: restart to rotate.")
    var tlsKey: String?

    var environment: [String: String] { ProcessInfo.processInfo.environment }
    var certificatePath: String? { tlsCert ?? environment["WALLET_SERVER_TLS_CERT"] }
    var keyPath: String? { tlsKey ?? environment["WALLET_SERVER_TLS_KEY"] }

    /// Nil without `--tls-cert` and `--tls-key`; else the checked server configuration, or a
    /// `StartupError` that says what to fix. Nothing here ever puts key material into a message.
    func load() throws -> ServedCertificate? {
        switch (certificatePath, keyPath) {
        case (nil, nil): return nil
        case (_?, nil):
            throw StartupError(
                "--tls-cert needs --tls-key (env WALLET_SERVER_TLS_KEY): the certificate's private key, PEM, mode 0600.")
        case (nil, _?): throw StartupError("--tls-key needs --tls-cert (env WALLET_SERVER_TLS_CERT): the certificate chain, PEM.")
        case (let certificatePath?, let keyPath?):
            return try ServedCertificate(certificatePath: certificatePath, keyPath: keyPath)
        }
    }
}

/// The certificate chain and key the server serves, checked at start, and what it logs about
/// them: the leaf's subject, SHA-256 fingerprint, expiry and public-key pin — never the key.
struct ServedCertificate: Sendable {
    let configuration: TLSConfiguration
    let subject: String
    /// SHA-256 of the leaf certificate's DER, upper-case hex pairs joined by colons (as
    /// `openssl x509 -fingerprint -sha256` prints it).
    let fingerprint: String
    let notValidAfter: Date
    /// What a wallet passes as `--server-pin`: `sha256/` and the base64 SHA-256 of the leaf's
    /// SubjectPublicKeyInfo (a key stays pinned across certificate renewals that keep the key).
    let pin: String

    init(certificatePath: String, keyPath: String) throws {
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMFile(certificatePath) } catch {
            throw StartupError("--tls-cert \(certificatePath): cannot read a PEM certificate chain from it (\(error)).")
        }
        guard let leaf = chain.first else {
            throw StartupError("--tls-cert \(certificatePath): the file holds no PEM certificate.")
        }
        // The key file goes through the one secret-file check the issuer keys and the chain
        // operator key use: refused with the `chmod 600` fix if group or others may read it.
        let keyBytes: [UInt8]
        do { keyBytes = try SecretFile.read(keyPath, maxBytes: 64 * 1024) } catch { throw StartupError("--tls-key: \(error).") }
        let key: NIOSSLPrivateKey
        // The parser's error is not shown: it could quote the file's bytes.
        do { key = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem) } catch {
            throw StartupError(
                "--tls-key \(keyPath): not a PEM private key (an unencrypted PKCS#8, RSA or EC key). Check the file.")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        // Built once here so a key that does not belong to the certificate stops the start with
        // a message, instead of failing every handshake later.
        do { _ = try NIOSSLContext(configuration: configuration) } catch {
            throw StartupError(
                "--tls-key \(keyPath) does not belong to the certificate in --tls-cert \(certificatePath) (or one of them is unusable). Check that they were issued together."
            )
        }
        let der: [UInt8]
        let spki: [UInt8]
        do {
            der = try leaf.toDERBytes()
            spki = try leaf.extractPublicKey().toSPKIBytes()
        } catch { throw StartupError("--tls-cert \(certificatePath): the certificate cannot be encoded (\(error)).") }
        self.configuration = configuration
        fingerprint = SHA256.hash(data: der).map { String(format: "%02X", $0) }.joined(separator: ":")
        pin = "sha256/" + Data(SHA256.hash(data: spki)).base64EncodedString()
        notValidAfter = Date(timeIntervalSince1970: TimeInterval(leaf.notValidAfter))
        subject = (try? Certificate(derEncoded: der)).map { String(describing: $0.subject) } ?? "(unreadable subject)"
    }

    /// The start-up log line: which certificate, never which key.
    var summary: String {
        let expiry = ISO8601DateFormatter().string(from: notValidAfter)
        let expired = notValidAfter < Date() ? " (EXPIRED: clients will refuse it)" : ""
        return
            "TLS certificate subject \(subject), SHA-256 fingerprint \(fingerprint), valid until \(expiry)\(expired), public-key pin \(pin); minimum TLS 1.2"
    }
}
