import CSodium
import Chirp
import Foundation
import Postgres
import TestSupport
import Testing

/// Access tokens as a forger, a confused client or a clock would present them, each sent over
/// HTTP to `GET /v1/me`. Only a well-formed HS256 token signed with the service's key, with
/// sane claims, gets in; an expired one that is otherwise good is told `token_expired` (so the
/// client refreshes), and everything else `unauthorized`. Over sockets: each `Authorization`
/// field goes through the server's own header parsing (an empty field, trailing blanks, a
/// token over 4 KiB) as a client's would.
@Suite struct AccessTokenTests {
    @Test(arguments: TokenVector.all)
    func vector(_ vector: TokenVector) async throws {
        let fixture = try await VectorFixture.shared.value
        let maker = TokenMaker(userID: fixture.userID, session: fixture.session, now: Int(Date().timeIntervalSince1970))
        let response = try await fixture.app.client.get("/v1/me", headers: ["Authorization": vector.authorization(maker)])

        switch vector.expected {
        case .accepted:
            #expect(response.status == 200, "\(response.text)")
            #expect(response.json["id"].string == fixture.userID.lowercasedString)
        case .rejected(let code):
            #expect(response.status == 401)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(response.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(response.json["code"].string == code, "\(response.text)")
            #expect(response.json["status"].int == 401)
        }
    }

    /// Every negative vector is only as good as the signer that made it: this one must produce
    /// exactly what the service issues.
    @Test func theTestSignerAgreesWithTheServiceByteForByte() async throws {
        let fixture = try await VectorFixture.shared.value
        let now = Int(Date().timeIntervalSince1970)
        let maker = TokenMaker(userID: fixture.userID, session: fixture.session, now: now)
        let issued = AccessTokens(secret: TestSecret.bytes)
            .issue(for: Viewer(id: fixture.userID, session: fixture.session), now: Date(timeIntervalSince1970: TimeInterval(now)))
        #expect(maker.signed() == issued)
        #expect(try AccessTokens(secret: TestSecret.bytes).verify(maker.signed()) == Viewer(id: fixture.userID, session: fixture.session))
    }

    @Test func aGoodTokenForAnAccountThatIsGoneIsRefused() async throws {
        let fixture = try await VectorFixture.shared.value
        let userID = try await fixture.app.database.scalar(
            "insert into users (username) values (\(uniqueName("gone"))) returning id", as: PostgresUUID.self)
        let session = try await VectorFixture.startSession(for: userID, in: fixture.app)
        let token = TokenMaker(userID: userID, session: session, now: Int(Date().timeIntervalSince1970)).signed()
        let before = try await fixture.app.client.get("/v1/me", token: token)
        #expect(before.status == 200)

        _ = try await fixture.app.database.execute("delete from users where id = \(userID)")
        let read = try await fixture.app.client.get("/v1/me", token: token)
        let write = try await fixture.app.client.patch("/v1/me", json: ["bio": "still here?"], token: token)
        for response in [read, write] {
            #expect(response.status == 401)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(response.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(response.json["code"].string == "unauthorized")
            // Its sessions went with it.
            #expect(response.json["detail"].string == "the session has ended; sign in again")
        }
    }

    @Test func aTokenForAUserThatNeverExistedIsRefused() async throws {
        let fixture = try await VectorFixture.shared.value
        let token = TokenMaker(userID: PostgresUUID(UUID()), session: PostgresUUID(UUID()), now: Int(Date().timeIntervalSince1970)).signed()
        let response = try await fixture.app.client.get("/v1/me", token: token)
        #expect(response.status == 401)
        #expect(response.json["code"].string == "unauthorized")
        #expect(response.json["detail"].string == "the session has ended; sign in again")
        #expect(response.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
    }
}

/// One service and one account for every vector; the vectors only read.
struct VectorFixture: Sendable {
    let app: TestService
    let userID: PostgresUUID
    let session: PostgresUUID

    static let shared = Task { try await VectorFixture() }

    private init() async throws {
        app = try await TestService.started(over: .socket)
        userID = try await app.database.scalar(
            "insert into users (username, display_name) values (\(uniqueName("vector")), 'Vector') returning id",
            as: PostgresUUID.self)
        session = try await Self.startSession(for: userID, in: app)
    }

    /// A live session of the user, as a login starts one: a refresh-token family.
    static func startSession(for userID: PostgresUUID, in app: TestService) async throws -> PostgresUUID {
        try await app.database.scalar("""
            insert into refresh_tokens (user_id, family_id, token_hash, expires_at)
            values (\(userID), gen_random_uuid(), sha256(gen_random_uuid()::text::bytea), now() + interval '1 day')
            returning family_id
            """, as: PostgresUUID.self)
    }
}

private func uniqueName(_ prefix: String) -> String {
    "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
}

/// What a request's `Authorization` field should get.
enum TokenOutcome: Sendable, Equatable {
    case accepted
    case rejected(code: String)

    static let unauthorized = TokenOutcome.rejected(code: "unauthorized")
    static let expired = TokenOutcome.rejected(code: "token_expired")
}

/// A named `Authorization` field, built at run time from the account and the clock.
struct TokenVector: Sendable, CustomTestStringConvertible {
    let name: String
    let expected: TokenOutcome
    private(set) var authorization: @Sendable (TokenMaker) -> String

    var testDescription: String { name }

    /// Sends `Authorization: Bearer <token>`.
    init(_ name: String, _ expected: TokenOutcome, token: @escaping @Sendable (TokenMaker) -> String) {
        self.name = name
        self.expected = expected
        self.authorization = { "Bearer " + token($0) }
    }

    /// Sends the whole `Authorization` field as given.
    static func field(_ name: String, _ expected: TokenOutcome, _ field: @escaping @Sendable (TokenMaker) -> String) -> TokenVector {
        var vector = TokenVector(name, expected) { _ in "" }
        vector.authorization = field
        return vector
    }

    static let all: [TokenVector] = controls + algorithms + forgeries + encodings + clocks + claims + schemes

    /// Good tokens: if these failed, every refusal below would prove nothing.
    static let controls: [TokenVector] = [
        .init("issued by the service", .accepted) { $0.issued(at: $0.now) },
        .init("hand-signed like the service", .accepted) { $0.signed() },
        .init("no typ header", .accepted) { $0.signed(header: #"{"alg":"HS256"}"#) },
        .field("lowercase bearer scheme", .accepted) { "bearer " + $0.signed() },
        .init("large but under 4 KiB", .accepted) {
            $0.signed(claims: $0.claims("pad", "\"" + String(repeating: "a", count: 2_500) + "\""))
        },
    ]

    static let algorithms: [TokenVector] = [
        .init("alg none without a signature", .unauthorized) {
            $0.unsigned(header: #"{"alg":"none","typ":"JWT"}"#, claims: $0.claims()) + "."
        },
        .init("alg none with an HS256 signature", .unauthorized) { $0.signed(header: #"{"alg":"none","typ":"JWT"}"#) },
        .init("alg None without a signature", .unauthorized) {
            $0.unsigned(header: #"{"alg":"None"}"#, claims: $0.claims()) + "."
        },
        .init("alg HS384 with an HS256 signature", .unauthorized) { $0.signed(header: #"{"alg":"HS384","typ":"JWT"}"#) },
        .init("alg HS512 with an HS256 signature", .unauthorized) { $0.signed(header: #"{"alg":"HS512","typ":"JWT"}"#) },
        .init("alg RS256 with an HS256 signature", .unauthorized) { $0.signed(header: #"{"alg":"RS256","typ":"JWT"}"#) },
        .init("alg ES256 with an HS256 signature", .unauthorized) { $0.signed(header: #"{"alg":"ES256","typ":"JWT"}"#) },
        .init("alg missing", .unauthorized) { $0.signed(header: #"{"typ":"JWT"}"#) },
        .init("alg lowercase hs256", .unauthorized) { $0.signed(header: #"{"alg":"hs256","typ":"JWT"}"#) },
        .init("alg not a string", .unauthorized) { $0.signed(header: #"{"alg":["HS256"],"typ":"JWT"}"#) },
        .init("crit header present", .unauthorized) { $0.signed(header: #"{"alg":"HS256","typ":"JWT","crit":["exp"]}"#) },
        .init("typ not JWT", .unauthorized) { $0.signed(header: #"{"alg":"HS256","typ":"JWE"}"#) },
        .init("header not an object", .unauthorized) { $0.signed(header: #"["HS256"]"#) },
    ]

    static let forgeries: [TokenVector] = [
        .init("wrong key", .unauthorized) { $0.signed(key: Array("another-secret-another-secret-another".utf8)) },
        .init("empty key", .unauthorized) { $0.signed(key: []) },
        .init("payload tampered: sub changed", .unauthorized) {
            $0.replacing(payload: $0.claims("sub", quoted(UUID().lowercasedString)), in: $0.signed())
        },
        .init("payload tampered: exp extended", .unauthorized) {
            $0.replacing(payload: $0.claims("exp", "\($0.now + 86_400 * 365)"), in: $0.signed())
        },
        .init("header tampered", .unauthorized) { maker in
            let token = maker.signed()
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            return [base64url(#"{"alg":"HS256","typ":"JWT","kid":"x"}"#), String(parts[1]), String(parts[2])].joined(separator: ".")
        },
        .init("signature of another token", .unauthorized) { maker in
            let other = maker.signed(claims: maker.claims("iat", "\(maker.now - 1)"))
            let mine = maker.signed().split(separator: ".")
            return "\(mine[0]).\(mine[1]).\(other.split(separator: ".")[2])"
        },
        .init("signature truncated by a character", .unauthorized) { String($0.signed().dropLast()) },
        .init("signature truncated to 16 bytes", .unauthorized) { maker in
            let parts = maker.signed().split(separator: ".")
            let signature = Array(base64urlDecode(String(parts[2])).prefix(16))
            return "\(parts[0]).\(parts[1]).\(base64url(signature))"
        },
        .init("signature empty", .unauthorized) { maker in
            let parts = maker.signed().split(separator: ".")
            return "\(parts[0]).\(parts[1])."
        },
        .init("expired and signed with the wrong key", .unauthorized) {
            $0.signed(claims: $0.expiredClaims(), key: Array("wrong".utf8))
        },
        .init("expired and alg none", .unauthorized) {
            $0.unsigned(header: #"{"alg":"none"}"#, claims: $0.expiredClaims()) + "."
        },
        .init("expired and sub not a UUID", .unauthorized) {
            $0.signed(claims: $0.expiredClaims([("sub", quoted("admin"))]))
        },
    ]

    static let encodings: [TokenVector] = [
        .init("extra segment", .unauthorized) { $0.signed() + "." + base64url("{}") },
        .init("trailing dot", .unauthorized) { $0.signed() + "." },
        .init("two segments", .unauthorized) { maker in
            let parts = maker.signed().split(separator: ".")
            return "\(parts[0]).\(parts[1])"
        },
        .init("empty token", .unauthorized) { _ in "" },
        .field("empty Authorization field", .unauthorized) { _ in "" },
        .init("garbage", .unauthorized) { _ in "this-is-not-a-token" },
        .init("three empty segments", .unauthorized) { _ in ".." },
        .init("standard base64 alphabet (+ and /)", .unauthorized) { $0.standardAlphabetToken() },
        .init("non-base64url character", .unauthorized) { maker in
            let token = maker.signed()
            return String(token.dropLast(2)) + "*" + String(token.suffix(1))
        },
        .init("padded payload, signed as sent", .unauthorized) { maker in
            // Claims whose encoding needs padding, padded, and signed over the padded text:
            // a lenient decoder would accept it.
            var claims = maker.claims()
            if claims.utf8.count % 3 == 0 { claims = maker.claims("jti", "\"j\"") }
            let padded = base64url(claims) + String(repeating: "=", count: 3 - claims.utf8.count % 3)
            let input = base64url(TokenMaker.header) + "." + padded
            return input + "." + base64url(hmacSHA256(Array(input.utf8), key: TestSecret.bytes))
        },
        .init("padded signature", .unauthorized) { $0.signed() + "=" },
        .init("whitespace inside", .unauthorized) { maker in
            let token = maker.signed()
            let middle = token.index(token.startIndex, offsetBy: token.count / 2)
            return String(token[..<middle]) + " " + String(token[middle...])
        },
        .init("payload not JSON", .unauthorized) { $0.signed(claims: "sub=me") },
        .init("huge token (over 4 KiB), correctly signed", .unauthorized) {
            $0.signed(claims: $0.claims("pad", "\"" + String(repeating: "a", count: 4_500) + "\""))
        },
    ]

    static let clocks: [TokenVector] = [
        .init("expired beyond the leeway", .expired) { $0.issued(at: $0.now - 900 - 120) },
        .init("expired within the leeway", .accepted) { $0.issued(at: $0.now - 900 - 10) },
        .init("nbf in the future beyond the leeway", .unauthorized) { $0.signed(claims: $0.claims("nbf", "\($0.now + 120)")) },
        .init("nbf in the future within the leeway", .accepted) { $0.signed(claims: $0.claims("nbf", "\($0.now + 10)")) },
        .init("iat in the future beyond the leeway", .unauthorized) { $0.issued(at: $0.now + 120) },
        .init("iat in the future within the leeway", .accepted) { $0.issued(at: $0.now + 10) },
    ]

    static let claims: [TokenVector] = [
        .init("sub missing", .unauthorized) { $0.signed(claims: $0.claims("sub", nil)) },
        .init("exp missing", .unauthorized) { $0.signed(claims: $0.claims("exp", nil)) },
        .init("iat missing", .unauthorized) { $0.signed(claims: $0.claims("iat", nil)) },
        .init("sub not a UUID", .unauthorized) { $0.signed(claims: $0.claims("sub", "\"admin\"")) },
        .init("sub an uppercase UUID", .unauthorized) { $0.signed(claims: $0.claims("sub", quoted($0.userID.lowercasedString.uppercased()))) },
        .init("sub a number", .unauthorized) { $0.signed(claims: $0.claims("sub", "42")) },
        .init("sid missing", .unauthorized) { $0.signed(claims: $0.claims("sid", nil)) },
        .init("sid not a UUID", .unauthorized) { $0.signed(claims: $0.claims("sid", "\"all\"")) },
        .init("sid an uppercase UUID", .unauthorized) { $0.signed(claims: $0.claims("sid", quoted($0.session.lowercasedString.uppercased()))) },
        .init("sid of a session that never existed", .unauthorized) {
            $0.signed(claims: $0.claims("sid", quoted(PostgresUUID(UUID()).lowercasedString)))
        },
        .init("exp as a string", .unauthorized) { $0.signed(claims: $0.claims("exp", "\"\($0.now + 900)\"")) },
        .init("exp as a float with a fraction", .unauthorized) { $0.signed(claims: $0.claims("exp", "\($0.now + 900).5")) },
        .init("exp as a bool", .unauthorized) { $0.signed(claims: $0.claims("exp", "true")) },
        .init("exp null", .unauthorized) { $0.signed(claims: $0.claims("exp", "null")) },
        .init("exp beyond any clock", .unauthorized) { $0.signed(claims: $0.claims("exp", "1e300")) },
        .init("nbf as a string", .unauthorized) { $0.signed(claims: $0.claims("nbf", "\"\($0.now)\"")) },
        .init("another issuer", .unauthorized) { $0.signed(claims: $0.claims("iss", "\"someone-else\"")) },
        .init("claims not an object", .unauthorized) { $0.signed(claims: "[]") },
    ]

    static let schemes: [TokenVector] = [
        .field("Bearer with no token", .unauthorized) { _ in "Bearer" },
        .field("Basic scheme", .unauthorized) { _ in "Basic " + Data("user:pass".utf8).base64EncodedString() },
        .field("a token with no scheme", .unauthorized) { $0.signed() },
        .field("Bearer glued to the token", .unauthorized) { "Bearer" + $0.signed() },
        .field("Bearer followed by a colon", .unauthorized) { "Bearer:" + $0.signed() },
        .field("a scheme that only starts like Bearer", .unauthorized) { "Bearez " + $0.signed() },
        .field("bearer in lower case", .accepted) { "bearer " + $0.signed() },
        .field("BEARER in upper case", .accepted) { "BEARER " + $0.signed() },
        .field("spaces and a tab around the token", .accepted) { "Bearer   " + $0.signed() + " \t" },
    ]
}

/// Makes tokens for one account at one instant, signed like the service signs them (or not).
struct TokenMaker: Sendable {
    static let header = #"{"alg":"HS256","typ":"JWT"}"#

    let userID: PostgresUUID
    let session: PostgresUUID
    let now: Int

    /// A token from the service's own issuer, as if issued at `issuedAt`.
    func issued(at issuedAt: Int) -> String {
        AccessTokens(secret: TestSecret.bytes)
            .issue(for: Viewer(id: userID, session: session), now: Date(timeIntervalSince1970: TimeInterval(issuedAt)))
    }

    /// The claims the service issues, as JSON text, with fields replaced by raw JSON values,
    /// removed (nil), or added at the end.
    func claims(_ changes: [(String, String?)] = []) -> String {
        var fields: [(String, String)] = [
            ("iss", "\"chirp\""), ("sub", "\"\(userID.lowercasedString)\""), ("sid", "\"\(session.lowercasedString)\""),
            ("iat", "\(now)"), ("exp", "\(now + 900)"),
        ]
        for (name, value) in changes {
            if let index = fields.firstIndex(where: { $0.0 == name }) {
                if let value { fields[index].1 = value } else { fields.remove(at: index) }
            } else if let value {
                fields.append((name, value))
            }
        }
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// The service's claims with one field replaced by a raw JSON value, removed (nil) or added.
    func claims(_ name: String, _ value: String?) -> String {
        claims([(name, value)])
    }

    /// The service's claims as they were 1 000 seconds ago: expired 100 seconds ago.
    func expiredClaims(_ changes: [(String, String?)] = []) -> String {
        claims([("iat", String(now - 1_000)), ("exp", String(now - 100))] + changes)
    }

    func unsigned(header: String, claims: String) -> String {
        base64url(header) + "." + base64url(claims)
    }

    func signed(header: String = TokenMaker.header, claims: String? = nil, key: [UInt8] = TestSecret.bytes) -> String {
        let input = unsigned(header: header, claims: claims ?? self.claims())
        return input + "." + base64url(hmacSHA256(Array(input.utf8), key: key))
    }

    /// `token` with its payload swapped and its signature kept.
    func replacing(payload claims: String, in token: String) -> String {
        let parts = token.split(separator: ".")
        return "\(parts[0]).\(base64url(claims)).\(parts[2])"
    }

    /// A good token respelled in the standard base64 alphabet: claims are varied until the
    /// signature has a `-` or `_` to respell, so the result certainly differs from the original.
    func standardAlphabetToken() -> String {
        for attempt in 0..<1_000 {
            let token = signed(claims: claims("jti", "\"\(attempt)\""))
            if token.contains("-") || token.contains("_") {
                return token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            }
        }
        return "+/+/"
    }
}

private func quoted(_ text: String) -> String {
    "\"" + text + "\""
}

private func base64url(_ text: String) -> String {
    base64url(Array(text.utf8))
}

private func base64url(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

private func base64urlDecode(_ text: String) -> [UInt8] {
    var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
    return Data(base64Encoded: standard).map { [UInt8]($0) } ?? []
}

/// HMAC-SHA256 through libsodium's streaming interface, which takes a key of any length.
private func hmacSHA256(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
    var state = crypto_auth_hmacsha256_state()
    var out = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
    crypto_auth_hmacsha256_init(&state, key, key.count)
    crypto_auth_hmacsha256_update(&state, message, UInt64(message.count))
    crypto_auth_hmacsha256_final(&state, &out)
    return out
}
