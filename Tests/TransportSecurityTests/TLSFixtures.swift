#if os(Linux)
import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Programs the tests run to completion (`ProgramRun`, shared with the CLI tests' harness).
enum Run {
    static func program(
        _ path: String, _ arguments: [String], environment: [String: String]? = nil, in directory: String
    ) throws -> ProgramRun {
        try ProgramRun.run(path, arguments, environment: environment, in: directory)
    }

    /// `openssl ARGS`, which must succeed.
    @discardableResult
    static func openssl(_ arguments: [String], in directory: String) throws -> String {
        let run = try program("/usr/bin/openssl", arguments, in: directory)
        guard run.status == 0 else { throw TestSupportError("openssl \(arguments.joined(separator: " ")) failed: \(run.stderr)") }
        return run.stdout
    }
}

/// Certificates made at test time with the `openssl` command line: a private CA and a server
/// certificate it issued for localhost and 127.0.0.1, a second CA that issued nothing the
/// server has, and the server key's pin as a client computes it independently of the server.
struct TLSFixtures {
    let directory: String
    var caCert: String { directory + "/ca.pem" }
    var otherCACert: String { directory + "/other-ca.pem" }
    var serverCert: String { directory + "/server.pem" }
    var serverKey: String { directory + "/server.key" }

    init(in directory: String) throws {
        self.directory = directory
        for ca in ["ca", "other-ca"] {
            try Run.openssl(
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "\(ca).key",
                    "-out", "\(ca).pem",
                    "-days", "2", "-subj", "/CN=Offline Wallet test \(ca)",
                ], in: directory)
        }
        try Run.openssl(
            [
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "server.key", "-out",
                "server.csr",
                "-subj", "/CN=localhost",
            ], in: directory)
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: directory + "/san.ext", atomically: true, encoding: .utf8)
        try Run.openssl(
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
                "-extfile", "san.ext",
                "-out", "server.pem",
            ], in: directory)
        chmod(serverKey, 0o600)
    }

    /// `sha256/BASE64` of the server certificate's SubjectPublicKeyInfo, by openssl.
    func pin() throws -> String {
        let spki = directory + "/server.spki"
        let pub = directory + "/server.pub"
        try Run.openssl(["x509", "-in", serverCert, "-pubkey", "-noout", "-out", pub], in: directory)
        try Run.openssl(["pkey", "-pubin", "-in", pub, "-outform", "der", "-out", spki], in: directory)
        let digest = try Run.openssl(
            ["dgst", "-sha256", "-binary", "-out", directory + "/server.spki.sha256", spki], in: directory)
        _ = digest
        let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/server.spki.sha256"))
        return "sha256/" + bytes.base64EncodedString()
    }

    /// The server certificate's SHA-256 fingerprint as openssl prints it (AA:BB:…).
    func fingerprint() throws -> String {
        let out = try Run.openssl(["x509", "-in", serverCert, "-noout", "-fingerprint", "-sha256"], in: directory)
        return String(out.split(separator: "=", maxSplits: 1).last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func pem(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
}
#endif
