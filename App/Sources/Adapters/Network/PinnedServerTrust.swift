#if canImport(Security)
import CryptoKit
import Foundation
import Security

/// The app's counterpart of the command line's `--server-pin` (README, "Pinning the server"):
/// a URLSession delegate that accepts the issuer only if its certificate carries the pinned
/// public key (`sha256/BASE64` of the SubjectPublicKeyInfo, as `wallet-server` logs it).
///
/// Without a pin the app keeps URLSession's default handling (the system's roots and App
/// Transport Security). With one, the pinned key is the server's identity, as on the command
/// line: the leaf is made the only anchor, so a self-signed certificate passes, while
/// `SecTrustEvaluateWithError` still checks its validity dates and that it names the host; then
/// the leaf's SPKI hash must equal the pin.
final class ServerPinDelegate: NSObject, URLSessionDelegate, Sendable {
    /// The 32-byte SHA-256 of the pinned SubjectPublicKeyInfo.
    let pin: Data

    /// Nil for text that is not `sha256/` and the base64 of 32 bytes.
    init?(pin text: String) {
        guard text.hasPrefix("sha256/"), let digest = Data(base64Encoded: String(text.dropFirst(7))), digest.count == 32 else {
            return nil
        }
        pin = digest
    }

    func urlSession(
        _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
            let trust = challenge.protectionSpace.serverTrust
        else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        guard let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate], let leaf = chain.first,
            let spki = Self.subjectPublicKeyInfo(of: leaf), Data(SHA256.hash(data: spki)) == pin
        else {
            completionHandler(.cancelAuthenticationChallenge, nil)
            return
        }
        // The pinned leaf as the only anchor: dates and host name are still evaluated.
        SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, challenge.protectionSpace.host as CFString))
        SecTrustSetAnchorCertificates(trust, [leaf] as CFArray)
        SecTrustSetAnchorCertificatesOnly(trust, true)
        guard SecTrustEvaluateWithError(trust, nil) else {
            completionHandler(.cancelAuthenticationChallenge, nil)
            return
        }
        completionHandler(.useCredential, URLCredential(trust: trust))
    }

    /// The DER SubjectPublicKeyInfo of a certificate's key. Security gives the bare key
    /// (`SecKeyCopyExternalRepresentation`: X9.63 for EC, PKCS#1 for RSA); the SPKI is that key
    /// behind the fixed ASN.1 header of its algorithm and size.
    static func subjectPublicKeyInfo(of certificate: SecCertificate) -> Data? {
        guard let key = SecCertificateCopyKey(certificate), let raw = SecKeyCopyExternalRepresentation(key, nil) as Data?,
            let attributes = SecKeyCopyAttributes(key) as? [CFString: Any],
            let type = attributes[kSecAttrKeyType] as? String, let bits = attributes[kSecAttrKeySizeInBits] as? Int
        else { return nil }
        // Security's key-type constants are CFStrings: bridged once here, so the cases below
        // compare Strings (an `as String` inside a case would be a cast pattern, not a value).
        let ellipticCurve = kSecAttrKeyTypeECSECPrimeRandom as String
        let rsa = kSecAttrKeyTypeRSA as String
        let header: [UInt8]
        switch (type, bits) {
        case (ellipticCurve, 256):
            header = [
                0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce,
                0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
            ]
        case (ellipticCurve, 384):
            header = [
                0x30, 0x76, 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00,
                0x22, 0x03, 0x62, 0x00,
            ]
        case (rsa, 2048):
            header = [
                0x30, 0x82, 0x01, 0x22, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00,
                0x03, 0x82, 0x01, 0x0f, 0x00,
            ]
        case (rsa, 4096):
            header = [
                0x30, 0x82, 0x02, 0x22, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00,
                0x03, 0x82, 0x02, 0x0f, 0x00,
            ]
        default: return nil
        }
        return Data(header) + raw
    }

    /// A session that pins `pin`, for the issuer client's URLSession transport
    /// (`URLSessionTransport(configuration: .init(session:))`); nil when no pin is set, and
    /// then the default session, with the system's trust, is used. Not wired to a setting yet:
    /// the app's server setting takes a URL only (see docs/server.md, "Transport security").
    static func session(pin text: String?) -> URLSession? {
        guard let text, let delegate = ServerPinDelegate(pin: text) else { return nil }
        return URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
    }
}
#endif
