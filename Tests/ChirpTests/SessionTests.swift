import Foundation
import TestSupport
import Testing

/// Ending a session ends its access tokens at once, not when they expire: logout, logout-all,
/// a password change (for the other sessions) and the reuse of a rotated refresh token. Every
/// signed-in transaction requires its session live, reads and writes alike.
@Suite struct SessionTests {
    let app: TestService
    init() async throws { app = try await .started(over: .router) }

    /// A second session of `user`, as another device's login starts one.
    func logIn(_ user: TestUser, password: String? = nil) async throws -> TestUser {
        let response = try await app.client.post("/v1/auth/login", json: ["username": user.username, "password": password ?? user.password])
            .requiring(200, "login of \(user.username)")
        return try #require(TestUser(session: response.json, password: password ?? user.password))
    }

    /// Whether `token` is refused as a session that has ended, reading and writing.
    func isEnded(_ token: String) async throws -> Bool {
        let read = try await app.client.get("/v1/me", token: token)
        let write = try await app.client.post("/v1/posts", json: ["body": "still here?"], token: token)
        return [read, write].allSatisfy {
            $0.status == 401 && $0.json["detail"].string == "the session has ended; sign in again"
                && $0.header("WWW-Authenticate") == #"Bearer error="invalid_token""#
        }
    }

    func isLive(_ token: String) async throws -> Bool {
        try await app.client.get("/v1/me", token: token).status == 200
    }

    @Test func logoutEndsItsAccessTokensAtOnceAndOnlyItsOwn() async throws {
        let phone = try await app.signUp("logout")
        let laptop = try await logIn(phone)
        #expect(try await isLive(phone.accessToken))

        let logout = try await app.client.post("/v1/auth/logout", json: ["refreshToken": phone.refreshToken], token: phone.accessToken)
        #expect(logout.status == 204)
        #expect(try await isEnded(phone.accessToken))
        #expect(try await app.client.post("/v1/auth/refresh", json: ["refreshToken": phone.refreshToken]).status == 401)
        // The other device's session goes on.
        #expect(try await isLive(laptop.accessToken))
        #expect(try await app.client.post("/v1/auth/refresh", json: ["refreshToken": laptop.refreshToken]).status == 200)
    }

    @Test func aRotatedSessionsNewAccessTokenWorksAndTheOldOneToo() async throws {
        let user = try await app.signUp("rotate")
        let rotated = try await app.client.post("/v1/auth/refresh", json: ["refreshToken": user.refreshToken]).requiring(200, "refresh")
        let access = try #require(rotated.json["accessToken"].string)
        // Rotation keeps the session: both access tokens name it, and it is live.
        #expect(try await isLive(access))
        #expect(try await isLive(user.accessToken))
    }

    @Test func reusingARotatedRefreshTokenEndsTheSessionsAccessTokens() async throws {
        let user = try await app.signUp("stolen")
        let rotated = try await app.client.post("/v1/auth/refresh", json: ["refreshToken": user.refreshToken]).requiring(200, "refresh")
        let access = try #require(rotated.json["accessToken"].string)
        // The thief replays the rotated token: the whole family ends, access tokens included.
        #expect(try await app.client.post("/v1/auth/refresh", json: ["refreshToken": user.refreshToken]).status == 401)
        #expect(try await isEnded(access))
        #expect(try await isEnded(user.accessToken))
    }

    @Test func logoutAllEndsEverySessionOfTheUserAndNobodyElses() async throws {
        let phone = try await app.signUp("everywhere")
        let laptop = try await logIn(phone)
        let other = try await app.signUp("bystander")

        #expect(try await app.client.post("/v1/auth/logout-all", json: [:], token: phone.accessToken).status == 204)
        #expect(try await isEnded(phone.accessToken))
        #expect(try await isEnded(laptop.accessToken))
        for refreshToken in [phone.refreshToken, laptop.refreshToken] {
            #expect(try await app.client.post("/v1/auth/refresh", json: ["refreshToken": refreshToken]).status == 401)
        }
        #expect(try await isLive(other.accessToken))
        // An ended session cannot end anything.
        let again = try await app.client.post("/v1/auth/logout-all", json: [:], token: phone.accessToken)
        #expect(again.status == 401)
        #expect(try await app.client.post("/v1/auth/logout-all", json: [:]).status == 401)
        // Signing in again starts afresh.
        #expect(try await isLive(try await logIn(phone).accessToken))
    }

    @Test func aPasswordChangeEndsEveryOtherSession() async throws {
        let phone = try await app.signUp("password")
        let laptop = try await logIn(phone)
        let change = try await app.client.put(
            "/v1/me/password", json: ["currentPassword": phone.password, "newPassword": "a brand new passphrase"], token: phone.accessToken)
        #expect(change.status == 204, "\(change.text)")

        #expect(try await isLive(phone.accessToken))
        #expect(try await app.client.post("/v1/auth/refresh", json: ["refreshToken": phone.refreshToken]).status == 200)
        #expect(try await isEnded(laptop.accessToken))
        #expect(try await app.client.post("/v1/auth/refresh", json: ["refreshToken": laptop.refreshToken]).status == 401)

        let old = try await app.client.post("/v1/auth/login", json: ["username": phone.username, "password": phone.password])
        #expect(old.status == 401)
        _ = try await logIn(phone, password: "a brand new passphrase")
    }

    @Test func aPasswordChangeNeedsTheCurrentPasswordAndALiveSession() async throws {
        let user = try await app.signUp("guarded")
        let wrong = try await app.client.put(
            "/v1/me/password", json: ["currentPassword": "not my password", "newPassword": "a brand new passphrase"], token: user.accessToken)
        #expect(wrong.status == 403)
        #expect(wrong.json["code"].string == "wrong_password")
        #expect(wrong.header("RateLimit") != nil)

        let short = try await app.client.put(
            "/v1/me/password", json: ["currentPassword": user.password, "newPassword": "short"], token: user.accessToken)
        #expect(short.status == 422)
        #expect(short.json["detail"].string?.hasPrefix("newPassword") == true)
        let missing = try await app.client.put("/v1/me/password", json: ["newPassword": "a brand new passphrase"], token: user.accessToken)
        #expect(missing.status == 422)
        let anonymous = try await app.client.put(
            "/v1/me/password", json: ["currentPassword": user.password, "newPassword": "a brand new passphrase"])
        #expect(anonymous.status == 401)

        // Nothing changed: the old password still signs in.
        let laptop = try await logIn(user)
        #expect(try await app.client.post("/v1/auth/logout-all", json: [:], token: laptop.accessToken).status == 204)
        let ended = try await app.client.put(
            "/v1/me/password", json: ["currentPassword": user.password, "newPassword": "a brand new passphrase"], token: user.accessToken)
        #expect(ended.status == 401)
        #expect(ended.json["detail"].string == "the session has ended; sign in again")
    }
}
