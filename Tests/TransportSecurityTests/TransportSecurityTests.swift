#if os(Linux)
import Foundation
import TestSupport
import Testing
import WalletHTTPS
import WalletSync

#if canImport(Glibc)
import Glibc
#endif

/// HTTPS end to end on loopback (docs/server.md, "Transport security"): a real `wallet-server`
/// serving certificates made at test time, real clients verifying them with a CA or a pin.
@Suite(.serialized) struct TransportSecurityTests {
    /// A TLS server on a system-picked port, with its fixtures and scratch directory.
    struct TLSServer {
        let scratch: TemporaryDirectory
        let fixtures: TLSFixtures
        let server: ServerProcess
        var port: Int { server.port }
        func url(_ host: String = "localhost", scheme: String = "https") -> URL { URL(string: "\(scheme)://\(host):\(port)")! }

        static func start(extra: [String] = []) async throws -> TLSServer {
            let scratch = try TemporaryDirectory("tls")
            let fixtures = try TLSFixtures(in: scratch.path)
            let server = try await ServerProcess.start(
                arguments: [
                    "--database", scratch.path("server.sqlite"), "--keys", scratch.path("keys"), "--tls-cert",
                    fixtures.serverCert,
                    "--tls-key", fixtures.serverKey,
                ] + extra,
                directory: scratch.path)
            return TLSServer(scratch: scratch, fixtures: fixtures, server: server)
        }
    }

    /// Asks for the issuer's configuration (no login needed) through `transport`.
    static func fetchConfig(_ url: URL, _ transport: HTTPSTransport) async throws -> IssuerConfiguration {
        try await IssuerClient(serverURL: url, transport: transport).config()
    }

    @Test func aClientTrustsTheServerThroughItsCAOrItsPinAndRefusesEverythingElse() async throws {
        let tls = try await TLSServer.start()
        defer { tls.server.stop() }
        let ca = try tls.fixtures.pem(tls.fixtures.caCert)

        // The issuing CA, by name and by address (the certificate names both).
        let viaCA = try HTTPSTransport(trust: .certificateAuthority(pem: ca))
        #expect(try await Self.fetchConfig(tls.url(), viaCA).currency == "EUR")
        #expect(try await Self.fetchConfig(tls.url("127.0.0.1"), viaCA).currency == "EUR")

        // Another CA: refused before anything is sent, with the message that says what to do.
        let wrongCA = try HTTPSTransport(trust: .certificateAuthority(pem: try tls.fixtures.pem(tls.fixtures.otherCACert)))
        let trustError = try #require(await caught(ServerTrustError.self) { try await Self.fetchConfig(tls.url(), wrongCA) })
        guard case .untrusted = trustError else {
            Issue.record("expected untrusted, got \(trustError)")
            return
        }
        #expect(trustError.code == "untrusted_server")
        #expect(trustError.description.hasPrefix("The server's certificate is not trusted: localhost:\(tls.port)"))
        #expect(trustError.description.contains("Pass --server-ca"))
        #expect(trustError.description.contains("check the URL"))

        // The system's roots do not know a private CA.
        let system = await caught(ServerTrustError.self) {
            try await Self.fetchConfig(tls.url(), try HTTPSTransport(trust: .system))
        }
        #expect(system?.code == "untrusted_server")

        // The right pin (computed by openssl from the certificate, and logged by the server).
        let pinText = try tls.fixtures.pin()
        #expect(tls.server.standardError.contains("public-key pin \(pinText)"))
        let pin = try #require(ServerKeyPin(pinText))
        #expect(try await Self.fetchConfig(tls.url("127.0.0.1"), try HTTPSTransport(trust: .publicKey(pin))).currency == "EUR")

        // A wrong pin: the message names both keys.
        let wrong = try #require(ServerKeyPin("sha256/" + Data(repeating: 7, count: 32).base64EncodedString()))
        let mismatch = await caught(ServerTrustError.self) {
            try await Self.fetchConfig(tls.url("127.0.0.1"), try HTTPSTransport(trust: .publicKey(wrong)))
        }
        #expect(mismatch == .pinMismatch(host: "127.0.0.1:\(tls.port)", expected: wrong, presented: pin))

        // Plain HTTP to the HTTPS port: the server closes; the client says to use https://.
        let unreachable = try #require(
            await caught(IssuerClientError.self) {
                try await Self.fetchConfig(tls.url("127.0.0.1", scheme: "http"), try HTTPSTransport())
            })
        #expect(unreachable.isUnreachable)
        #expect(unreachable.description.contains("if the server serves HTTPS, use an https:// URL"))
        // …and a pin for a plain URL is refused without connecting.
        let pinnedPlain = await caught(ServerTrustError.self) {
            try await Self.fetchConfig(tls.url("127.0.0.1", scheme: "http"), try HTTPSTransport(trust: .publicKey(pin)))
        }
        #expect(pinnedPlain?.code == "pin_needs_https")
    }

    @Test func theServerLogsWhichCertificateItServesAndRefusesOldTLS() async throws {
        let tls = try await TLSServer.start()
        defer { tls.server.stop() }
        let log = tls.server.standardError
        #expect(log.contains("TLS certificate subject CN=localhost"))
        #expect(log.contains("SHA-256 fingerprint \(try tls.fixtures.fingerprint())"))
        #expect(log.contains("valid until "))
        #expect(log.contains("wallet-server on https://"))
        // TLS 1.1 is refused; 1.2 is served.
        let base = ["s_client", "-connect", "127.0.0.1:\(tls.port)", "-CAfile", tls.fixtures.caCert]
        // (SECLEVEL=0: the client itself would allow TLS 1.1; only the server refuses it.)
        let old = try Run.program(
            "/bin/sh",
            ["-c", "echo | openssl " + (base + ["-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"]).joined(separator: " ") + " 2>&1"],
            in: tls.scratch.path)
        #expect(old.stdout.contains("alert protocol version"), "\(old.stdout)")
        #expect(old.stdout.contains("Cipher is (NONE)"))
        let current = try Run.program(
            "/bin/sh", ["-c", "echo | openssl " + (base + ["-tls1_2"]).joined(separator: " ") + " 2>&1"], in: tls.scratch.path)
        #expect(current.stdout.contains("Protocol  : TLSv1.2") || current.stdout.contains("TLSv1.2"))
        #expect(!current.stdout.contains("Cipher is (NONE)"))
    }

    @Test func aTLSKeyFileOthersCanReadIsRefusedWithTheFix() async throws {
        let scratch = try TemporaryDirectory("tls-key-mode")
        let fixtures = try TLSFixtures(in: scratch.path)
        chmod(fixtures.serverKey, 0o644)
        let refused = await caught(TestSupportError.self) {
            try await ServerProcess.start(
                arguments: [
                    "--database", scratch.path("server.sqlite"), "--keys", scratch.path("keys"), "--tls-cert",
                    fixtures.serverCert,
                    "--tls-key", fixtures.serverKey,
                ],
                directory: scratch.path)
        }
        let message = "\(refused.map { "\($0)" } ?? "started")"
        #expect(
            message.contains(
                "--tls-key: key file \(fixtures.serverKey) is readable by other users (mode 644): run `chmod 600 \(fixtures.serverKey)`"
            ))
        // Before the issuer opened anything: no key directory was created.
        #expect(!FileManager.default.fileExists(atPath: scratch.path("keys")))
        // A certificate without its key, and the other way round, are refused too.
        let alone = await caught(TestSupportError.self) {
            try await ServerProcess.start(
                arguments: ["--database", scratch.path("s2.sqlite"), "--tls-cert", fixtures.serverCert], directory: scratch.path)
        }
        #expect("\(alone.map { "\($0)" } ?? "")".contains("--tls-cert needs --tls-key"))
    }

    /// The issuer's own keys: exactly 0600 whatever the umask (0 would allow 0666, 0377 would
    /// leave 0400 with open(2)'s mode alone), and refused at start once others may read them.
    @Test func issuerKeyFilesAre0600WhateverTheUmaskAndRefusedWhenReadableByOthers() throws {
        let scratch = try TemporaryDirectory("key-modes")
        let server = try BuiltProducts.path("wallet-server")
        for (umask, name) in [("000", "open"), ("377", "tight")] {
            let keys = scratch.path("keys-\(name)")
            let run = try Run.program(
                "/bin/sh",
                [
                    "-c",
                    "umask \(umask); exec \"$0\" create-admin --keys \"$1\" --database \"$2\" --email admin-\(name)@example.com --password 'a long admin password'",
                    server, keys, scratch.path("db-\(name).sqlite"),
                ],
                in: scratch.path)
            #expect(run.status == 0, "\(run.stderr)")
            let files = try FileManager.default.contentsOfDirectory(atPath: keys).sorted()
            #expect(
                files.contains("authority.key") && files.contains("secret.key") && files.contains { $0.hasPrefix("issuing-") })
            for file in files {
                var info = stat()
                #expect(stat(keys + "/" + file, &info) == 0)
                #expect(
                    info.st_mode & 0o7777 == 0o600, "umask \(umask): \(file) has mode \(String(info.st_mode & 0o7777, radix: 8))")
            }
        }
        let keys = scratch.path("keys-open")
        chmod(keys + "/secret.key", 0o640)
        let refused = try Run.program(
            server,
            [
                "create-admin", "--keys", keys, "--database", scratch.path("db-open.sqlite"), "--email", "second@example.com",
                "--password", "a long admin password",
            ],
            in: scratch.path)
        #expect(refused.status != 0)
        #expect(
            refused.stderr.contains(
                "\(keys)/secret.key is readable by other users (mode 640): run `chmod 600 \(keys)/secret.key`"))
    }
}
#endif

#if os(Linux)
/// Secrets in start-up errors: a PostgreSQL URL the server cannot use is named without its
/// password. A password holding an unescaped `#` (common in generated ones) makes the URL
/// unparsable, and the refusal echoed it whole: `Error: not a postgres:// URL: postgres://wallet:Sup3r#…`.
@Suite struct StartupErrorSecretTests {
    @Test func aMalformedPostgresURLIsNamedWithoutItsPassword() throws {
        let scratch = try TemporaryDirectory("pg-url")
        let run = try Run.program(
            try BuiltProducts.path("wallet-server"),
            [
                "serve", "--postgres", "postgres://wallet:Sup3r#SecretPw@db.example/walletdb", "--database-wait", "0", "--keys",
                scratch.path("keys"), "--port", "0",
            ],
            in: scratch.path)
        #expect(run.status != 0)
        #expect(run.stderr.contains("not a postgres:// URL: postgres://wallet:***@db.example/walletdb"), "\(run.stderr)")
        #expect(!(run.stdout + run.stderr).contains("SecretPw"))
    }
}
#endif
