import Crypto
import Foundation
import IssuerCore
import OfflineNotes
import Synchronization

/// Short-lived access tokens: compact JWS (RFC 7515) with HS256, claims `sub` (account id),
/// `role`, `iat`, `exp`. HMAC keeps verification to one hash per request and needs no key
/// distribution beyond the secret shared by the server processes of one deployment.
public struct AccessTokens: Sendable {
    public struct Claims: Codable, Sendable, Equatable {
        public let sub: Int64
        public let role: String
        public let iat: Int64
        public let exp: Int64
    }

    let key: SendableKey<SymmetricKey>
    public let lifetime: Int64
    let clock: @Sendable () -> Int64
    /// Tokens already verified (a client sends the same one for 15 minutes). Bounded; a
    /// cached token is still checked for expiry on every use.
    let verified = VerifiedCache()

    final class VerifiedCache: Sendable {
        let entries = Mutex<[String: Claims]>([:])
        func get(_ token: String) -> Claims? { entries.withLock { $0[token] } }
        func put(_ token: String, _ claims: Claims) {
            entries.withLock { cache in
                if cache.count >= 10_000 { cache.removeAll(keepingCapacity: true) }
                cache[token] = claims
            }
        }
    }

    public init(
        secret: [UInt8], lifetime: Int64 = 900, clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) {
        key = SendableKey(SymmetricKey(data: secret))
        self.lifetime = lifetime
        self.clock = clock
    }

    static let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))

    public func issue(account: Int64, role: String) -> String {
        let now = clock()
        let claims = Claims(sub: account, role: role, iat: now, exp: now + lifetime)
        let payload = Base64URL.encode(Array((try? JSONEncoder().encode(claims)) ?? Data()))
        let signingInput = Self.header + "." + payload
        let mac = HMAC<SHA256>.authenticationCode(for: Array(signingInput.utf8), using: key.value)
        return signingInput + "." + Base64URL.encode(Array(mac))
    }

    /// The claims of a valid, unexpired token; nil otherwise.
    public func verify(_ token: String) -> Claims? {
        if let claims = verified.get(token) { return claims.exp > clock() ? claims : nil }
        guard let claims = verifyUncached(token) else { return nil }
        verified.put(token, claims)
        return claims
    }

    func verifyUncached(_ token: String) -> Claims? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == Self.header, let mac = Base64URL.decode(String(parts[2])),
            HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Array("\(parts[0]).\(parts[1])".utf8), using: key.value),
            let payload = Base64URL.decode(String(parts[1])),
            let claims = try? JSONDecoder().decode(Claims.self, from: Data(payload)), claims.exp > clock()
        else { return nil }
        return claims
    }
}
