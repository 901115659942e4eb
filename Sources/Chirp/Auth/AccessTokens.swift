import Foundation
import Postgres

/// Access tokens: JWTs signed with HMAC-SHA256 (libsodium). Verification accepts exactly
/// `{"alg":"HS256"}` tokens with a valid signature (compared in constant time), a UUID `sub`
/// (the user) and `sid` (their session), and integer `iat` and `exp` (and `nbf` when present)
/// within `leeway` of the clock. Whether the session is still live is the database's to say,
/// in the request's own transaction (`Viewer`).
public struct AccessTokens: Sendable {
    public enum Failure: Error, Equatable {
        /// Well-formed and correctly signed, but past `exp`.
        case expired
        /// Anything else: malformed, wrong algorithm, bad signature, bad or missing claims.
        case invalid
    }

    private let key: HMACKey
    public let lifetime: Int
    public let leeway: Int
    public static let issuer = "chirp"

    public init(secret: [UInt8], lifetimeSeconds: Int = 900, leewaySeconds: Int = 30) {
        key = HMACKey(secret)
        self.lifetime = lifetimeSeconds
        self.leeway = leewaySeconds
    }

    private static let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))

    public func issue(for viewer: Viewer, now: Date = Date()) -> String {
        let issuedAt = Int(now.timeIntervalSince1970)
        let claims = #"{"iss":"\#(Self.issuer)","sub":"\#(viewer.id.lowercasedString)","sid":"\#(viewer.session.lowercasedString)","iat":\#(issuedAt),"exp":\#(issuedAt + lifetime)}"#
        let signingInput = Self.header + "." + Base64URL.encode(Array(claims.utf8))
        return signingInput + "." + Base64URL.encode(mac(Array(signingInput.utf8)))
    }

    /// The user the token speaks for, and the session it was issued in.
    public func verify(_ token: String, now: Date = Date()) throws(Failure) -> Viewer {
        guard token.utf8.count <= 4096 else { throw .invalid }
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerBytes = Base64URL.decode(Substring(parts[0])),
              let claimBytes = Base64URL.decode(Substring(parts[1])),
              let signature = Base64URL.decode(Substring(parts[2]))
        else { throw .invalid }

        // The header must name HS256 and nothing may change how it is verified.
        guard let header = Self.object(headerBytes),
              header["alg"] == .string("HS256"),
              header["crit"] == nil,
              header["typ"] == nil || header["typ"] == .string("JWT")
        else { throw .invalid }

        let signingInput = Array(token.utf8.prefix(parts[0].count + 1 + parts[1].count))
        let expected = mac(signingInput)
        guard HMAC.equal(signature, expected) else { throw .invalid }

        guard let claims = Self.object(claimBytes),
              let userID = Self.uuid(claims["sub"]),
              let session = Self.uuid(claims["sid"]),
              let issuedAt = Self.integer(claims["iat"]),
              let expiresAt = Self.integer(claims["exp"]),
              claims["iss"] == nil || claims["iss"] == .string(Self.issuer)
        else { throw .invalid }
        let notBefore: Int?
        if let value = claims["nbf"] {
            guard let integer = Self.integer(value) else { throw .invalid }
            notBefore = integer
        } else {
            notBefore = nil
        }
        let clock = Int(now.timeIntervalSince1970)
        guard issuedAt <= clock + leeway, (notBefore ?? clock) <= clock + leeway else { throw .invalid }
        guard expiresAt + leeway > clock else { throw .expired }
        return Viewer(id: userID, session: session)
    }

    /// A UUID in the lowercase canonical form the service issues, and no other spelling.
    private static func uuid(_ value: JSONValue?) -> PostgresUUID? {
        guard case .string(let text)? = value,
              !text.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
        else { return nil }
        return PostgresUUID(canonical: text)
    }

    private func mac(_ message: [UInt8]) -> [UInt8] {
        key.authenticate(message)
    }

    private static func object(_ bytes: [UInt8]) -> [String: JSONValue]? {
        // Bounded in depth: the header is parsed before the signature is checked.
        guard case .object(let fields)? = JSONValue.parse(bytes) else {
            return nil
        }
        return fields
    }

    /// A JSON number that is a whole number of seconds (not a bool, not a string).
    private static func integer(_ value: JSONValue?) -> Int? {
        guard case .number(let number)? = value, number.rounded() == number, abs(number) < 1e15 else {
            return nil
        }
        return Int(number)
    }
}
