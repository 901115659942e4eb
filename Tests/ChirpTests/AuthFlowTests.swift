import Foundation
import TestSupport
import Testing

/// Sign-up, login, refresh and logout, profile edits, and the refusals of each. Through the
/// router: what is tested is the routes' answers, not HTTP.
@Suite struct AuthFlowTests {
    let app: TestService
    init() async throws { app = try await .started(over: .router) }

    @Test func signUpLogInRefreshAndLogOut() async throws {
        let user = try await app.signUp("flow")
        let me = try await app.client.get("/v1/me", token: user.accessToken)
        #expect(me.status == 200)
        #expect(me.json["username"].string == user.username)

        let login = try await app.client.post("/v1/auth/login", json: ["username": user.username.uppercased(), "password": user.password])
        #expect(login.status == 200)
        #expect(login.json["expiresIn"].int == 900)
        let refreshToken = try #require(login.json["refreshToken"].string)

        let rotated = try await app.client.post("/v1/auth/refresh", json: ["refreshToken": refreshToken])
        #expect(rotated.status == 200)
        let successor = try #require(rotated.json["refreshToken"].string)
        #expect(successor != refreshToken)

        let logout = try await app.client.post("/v1/auth/logout", json: ["refreshToken": successor], token: user.accessToken)
        #expect(logout.status == 204)
        let afterLogout = try await app.client.post("/v1/auth/refresh", json: ["refreshToken": successor])
        #expect(afterLogout.status == 401)
    }

    @Test func reusingARotatedRefreshTokenRevokesTheWholeChain() async throws {
        let user = try await app.signUp("reuse")
        let first = try await app.client.post("/v1/auth/refresh", json: ["refreshToken": user.refreshToken])
            .requiring(200, "the first refresh")
        let second = try #require(first.json["refreshToken"].string)
        // An attacker replays the old token: refused, and the legitimate successor dies too.
        let replay = try await app.client.post("/v1/auth/refresh", json: ["refreshToken": user.refreshToken])
        #expect(replay.status == 401)
        let victim = try await app.client.post("/v1/auth/refresh", json: ["refreshToken": second])
        #expect(victim.status == 401)
    }

    @Test func unknownUserAndWrongPasswordAnswerAlike() async throws {
        let user = try await app.signUp("alike")
        let wrong = try await app.client.post("/v1/auth/login", json: ["username": user.username, "password": "not the password"])
        let unknown = try await app.client.post("/v1/auth/login", json: ["username": "nobody_\(UUID().uuidString.prefix(6).lowercased())", "password": "not the password"])
        #expect(wrong.status == 401 && unknown.status == 401)
        #expect(wrong.json["code"] == unknown.json["code"])
        #expect(wrong.json["detail"] == unknown.json["detail"])
    }

    @Test func takenUsernamesAreAConflictWhateverTheirCase() async throws {
        let user = try await app.signUp("taken")
        let again = try await app.client.post("/v1/auth/signup", json: ["username": user.username.uppercased(), "password": "another password"])
        #expect(again.status == 409)
        #expect(again.json["code"].string == "username_taken")
    }

    @Test func badSignUpsAre4xxWithStableCodes() async throws {
        let cases: [(String, String?, Int, String)] = [
            (#"{"username":"ab","password":"long enough"}"#, "application/json", 422, "validation_failed"),
            (#"{"username":"has space","password":"long enough"}"#, "application/json", 422, "validation_failed"),
            (#"{"username":"shortpw_user","password":"short"}"#, "application/json", 422, "validation_failed"),
            (#"{"username":"nul_user","password":"long enough\u0000"}"#, "application/json", 422, "validation_failed"),
            (#"{"username":"mass_assign","password":"long enough","followerCount":1000}"#, "application/json", 422, "validation_failed"),
            (#"{"username":"mass_assign2","password":"long enough","id":"00000000-0000-0000-0000-000000000000"}"#, "application/json", 422, "validation_failed"),
            (#"{"username":42,"password":"long enough"}"#, "application/json", 422, "validation_failed"),
            (#"{"username":"x""#, "application/json", 400, "malformed_json"),
            (#"["username"]"#, "application/json", 400, "malformed_json"),
            (#"{"username":"plain_text","password":"long enough"}"#, "text/plain", 415, "unsupported_media_type"),
            (#"{"username":"no_type","password":"long enough"}"#, nil, 415, "unsupported_media_type"),
        ]
        for (body, type, status, code) in cases {
            let response = try await app.client.post("/v1/auth/signup", raw: body, contentType: type)
            #expect(response.status == status, "\(body)")
            #expect(response.json["code"].string == code, "\(body)")
            #expect(response.header("Content-Type") == "application/problem+json")
        }
    }

    /// With the last value winning, a proxy or log keeping the first would read a different
    /// request than the service (I-JSON, RFC 7493 §2.3): the body is refused, not logged in.
    @Test func aRepeatedMemberNameIsRefusedRatherThanTheLastWinning() async throws {
        let user = try await app.signUp("twice")
        let body = #"{"username":"\#(user.username)","password":"wrong password","password":"correct horse battery"}"#
        let response = try await app.client.post("/v1/auth/login", raw: body, contentType: "application/json")
        #expect(response.status == 400)
        #expect(response.json["code"].string == "malformed_json")
        #expect(response.json["detail"].string?.contains(#""password""#) == true)
        #expect(response.json["accessToken"].string == nil)
    }

    /// Unicode TR 39: invisible characters that spoof a name are refused in display names and
    /// bios, at sign-up and on edit; the joiners and selectors emoji and scripts need are not.
    @Test func namesAndBiosRefuseInvisibleFormatting() async throws {
        let user = try await app.signUp("spoof")
        for (field, value) in [
            ("displayName", "\u{202E}moc.elgoog"), ("displayName", "ad\u{200B}min"), ("displayName", "\u{3164}"),
            ("displayName", "Ada\u{200D}"), ("bio", "hello\u{2066}world"), ("bio", "soft\u{00AD}hyphen"), ("bio", "\u{FEFF}bom"),
        ] {
            let edit = try await app.client.patch("/v1/me", json: [field: value], token: user.accessToken)
            #expect(edit.status == 422, "\(field) \(value.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect(edit.json["detail"].string?.contains("invisible formatting character") == true)
        }
        let signUp = try await app.client.post(
            "/v1/auth/signup", json: ["username": "spoof_\(UUID().uuidString.prefix(6).lowercased())", "password": "long enough password",
                                      "displayName": "\u{202E}nimda"])
        #expect(signUp.status == 422)
        for value in ["👩\u{200D}❤\u{FE0F}\u{200D}👨 Ada", "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}", "می\u{200C}خواهم", "Zoë ✌\u{FE0F}"] {
            let edit = try await app.client.patch("/v1/me", json: ["displayName": value, "bio": value], token: user.accessToken)
            #expect(edit.status == 200, "\(value)")
            #expect(edit.json["displayName"].string == value)
        }
    }

    /// Tokens must never be kept by a cache (RFC 9111): every answer that carries them says so.
    @Test func tokenResponsesAreNeverStoredByCaches() async throws {
        let user = try await app.signUp("nocache")
        let login = try await app.client.logIn(user.username, user.password)
        let refreshed = try await app.client.post("/v1/auth/refresh", json: ["refreshToken": user.refreshToken])
        let signUp = try await app.client.post(
            "/v1/auth/signup", json: ["username": "nocache_\(UUID().uuidString.prefix(6).lowercased())", "password": "long enough password"])
        for response in [login, refreshed, signUp] {
            #expect((200...201).contains(response.status))
            #expect(response.header("Cache-Control") == "no-store")
        }
    }

    @Test func profileUpdatesTouchOnlyOwnEditableFields() async throws {
        let user = try await app.signUp("editor")
        let updated = try await app.client.patch("/v1/me", json: ["displayName": "  New Name ", "bio": "Hello"], token: user.accessToken)
        #expect(updated.status == 200)
        #expect(updated.json["displayName"].string == "New Name")
        #expect(updated.json["bio"].string == "Hello")
        let sneaky = try await app.client.patch("/v1/me", json: ["followerCount": 1_000_000], token: user.accessToken)
        #expect(sneaky.status == 422)
        let tooLong = try await app.client.patch("/v1/me", json: ["bio": String(repeating: "x", count: 301)], token: user.accessToken)
        #expect(tooLong.status == 422)
        let anonymous = try await app.client.patch("/v1/me", json: ["bio": "x"])
        #expect(anonymous.status == 401)
        #expect(anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
    }

    @Test func aRetriedSignUpWithItsIdempotencyKeyReplaysWithAFreshSession() async throws {
        let username = "idem_\(UUID().uuidString.prefix(8).lowercased())"
        let body: [String: Any] = ["username": username, "password": "correct horse battery"]
        let key = UUID().uuidString
        // A retry resends the very same request: serialize once.
        let bytes = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        let first = try await app.client.request("POST", "/v1/auth/signup", body: bytes, headers: ["Idempotency-Key": key])
        let retry = try await app.client.request("POST", "/v1/auth/signup", body: bytes, headers: ["Idempotency-Key": key])
        #expect(first.status == 201 && retry.status == 201, "\(retry.status) \(retry.text)")
        #expect(retry.header("Idempotent-Replayed") == "true")
        for response in [first, retry] {  // a replay still reports the attempts left, as documented
            #expect(response.header("RateLimit-Policy")?.hasPrefix("\"signup-ip\"") == true)
            #expect(response.header("RateLimit")?.hasPrefix("\"signup-ip\"") == true)
        }
        #expect(first.json["user"]["id"] == retry.json["user"]["id"])
        #expect(first.json["refreshToken"] != retry.json["refreshToken"])
        #expect(try await app.client.get("/v1/me", token: retry.json["accessToken"].string).status == 200)
        let stored = try await app.database.scalar(
            "select convert_from(response_body, 'UTF8') from idempotency_keys where idempotency_key = \(key)", as: String.self)
        #expect(stored == first.json["user"]["id"].string)  // no token is kept
        var other = body
        other["password"] = "another password here"
        #expect(try await app.client.post("/v1/auth/signup", json: other, headers: ["Idempotency-Key": key]).status == 422)
        #expect(try await app.client.post("/v1/auth/signup", json: body, headers: ["Idempotency-Key": "has space"]).status == 400)
    }
}
