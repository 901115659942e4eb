@testable import Chirp
import Foundation
import Postgres
import TestSupport
import Testing

/// The budgets of sign-up, login and refresh, at their boundary: `limit` attempts pass and say
/// how many are left, the next is a 429 that says when to come back. Windows are a day long
/// here so that no test run straddles a window's end. Through the router, whose requests come
/// from 127.0.0.1 as a socket test's do: the address budgets key on the request's address,
/// which HTTPTests check the server takes from the socket.
@Suite struct RateLimitTests {
    static let window = 86_400

    @Test func failedLoginsPerUsernameAndAddressCountDownThenAre429() async throws {
        let app = try await TestService.started(over: .router) {
            $0.rateLimits.loginFailuresPerUsernameAndAddress = RateLimit(name: "login-fail", limit: 3, windowSeconds: Self.window)
        }
        let user = try await app.signUp("budget")

        for remaining in [2, 1, 0] {
            let attempt = try await app.client.logIn(user.username, "not the password")
            #expect(attempt.status == 401)
            #expect(attempt.json["code"].string == "unauthorized")
            try expectBudget(attempt, name: "login-fail", limit: 3, remaining: remaining)
        }
        // Spent from this address: even the right password is refused, without a word on
        // whether it was right.
        let refused = try await app.client.logIn(user.username, user.password)
        try expectRefusal(refused, name: "login-fail", limit: 3)
        #expect(refused.json["accessToken"].exists == false)

        // Usernames are counted case-insensitively, as they are matched.
        let shouting = try await app.client.logIn(user.username.uppercased(), user.password)
        #expect(shouting.status == 429)

        // Another account keeps its own budget, from the same address.
        let other = try await app.signUp("neighbour")
        let fresh = try await app.client.logIn(other.username, other.password)
        #expect(fresh.status == 200)
        let unknown = try await app.client.logIn("nobody_\(UUID().uuidString.prefix(6).lowercased())", "whatever it is")
        #expect(unknown.status == 401)
        try expectBudget(unknown, name: "login-fail", limit: 3, remaining: 2)
    }

    /// The lockout the budgets must not allow: someone else's failures, from elsewhere, never
    /// keep a user with the right password out.
    @Test func anotherAddresssFailuresNeverLockTheUserOut() async throws {
        let app = try await TestService.started(over: .router) {
            $0.rateLimits.loginFailuresPerUsernameAndAddress = RateLimit(name: "login-fail", limit: 3, windowSeconds: Self.window)
        }
        let user = try await app.signUp("target")
        for attempt in 0..<5 {
            let guess = try await app.client.logIn(user.username, "guess \(attempt)", from: "203.0.113.66")
            #expect(guess.status == (attempt < 3 ? 401 : 429))
        }
        let owner = try await app.client.logIn(user.username, user.password)
        #expect(owner.status == 200)
        try expectBudget(owner, name: "login-fail", limit: 3, remaining: 2)
    }

    /// Successes are not failures: a user who signs in again and again is never refused for it.
    @Test func successfulLoginsAreNotCountedAsFailures() async throws {
        let app = try await TestService.started(over: .router) {
            $0.rateLimits.loginFailuresPerUsernameAndAddress = RateLimit(name: "login-fail", limit: 3, windowSeconds: Self.window)
        }
        let user = try await app.signUp("regular")
        for _ in 0..<6 {
            #expect(try await app.client.logIn(user.username, user.password).status == 200)
        }
        // Two failures between successes still leave one attempt.
        for _ in 0..<2 { #expect(try await app.client.logIn(user.username, "wrong").status == 401) }
        #expect(try await app.client.logIn(user.username, user.password).status == 200)
        let last = try await app.client.logIn(user.username, "wrong")
        #expect(last.status == 401)
        try expectBudget(last, name: "login-fail", limit: 3, remaining: 0)
    }

    /// Past the username's budget of failures from anywhere, attempts are slowed, not refused:
    /// guesses spread over many addresses cost time, and the right password still signs in.
    @Test func failuresFromEverywhereSlowTheUsernameDownWithoutLockingItOut() async throws {
        let app = try await TestService.started(over: .router) {
            $0.rateLimits.loginFailuresPerUsername = RateLimit(name: "login-fail-user", limit: 3, windowSeconds: Self.window)
            $0.rateLimits.loginSlowdown = .seconds(3)
        }
        let user = try await app.signUp("spread")
        let clock = ContinuousClock()
        for attempt in 0..<3 {
            #expect(try await app.client.logIn(user.username, "guess", from: "198.51.100.\(attempt + 1)").status == 401)
        }
        let started = clock.now
        let slowed = try await app.client.logIn(user.username, "guess", from: "198.51.100.9")
        #expect(slowed.status == 401)
        #expect(started.duration(to: clock.now) >= .seconds(3))
        let owner = try await app.client.logIn(user.username, user.password)
        #expect(owner.status == 200)
    }

    @Test func theLoginPolicyNamesEveryBudgetAndTheTightestIsReported() async throws {
        let app = try await TestService.started(over: .router) {
            $0.rateLimits.loginFailuresPerUsernameAndAddress = RateLimit(name: "login-fail", limit: 5, windowSeconds: Self.window)
            $0.rateLimits.loginPerAddress = RateLimit(name: "login-ip", limit: 3, windowSeconds: Self.window)
        }
        let user = try await app.signUp("tightest")
        let first = try await app.client.logIn(user.username, user.password)
        #expect(first.status == 200)
        let policy = first.header("RateLimit-Policy") ?? ""
        #expect(policy.contains(#""login-ip";q=3;w=86400"#))
        #expect(policy.contains(#""login-fail";q=5;w=86400"#))
        try expectBudget(first, name: "login-ip", limit: 3, remaining: 2)

        // The address budget runs out first, whichever usernames are tried.
        for name in ["someone_else", "and_another"] {
            #expect(try await app.client.logIn(name, "whatever it is").status == 401)
        }
        let refused = try await app.client.logIn(user.username, user.password)
        try expectRefusal(refused, name: "login-ip", limit: 3)
    }

    @Test func signUpsPerAddressCountDownThenAre429() async throws {
        let app = try await TestService.started(over: .router) { $0.rateLimits.signupPerAddress = RateLimit(name: "signup-ip", limit: 3, windowSeconds: Self.window) }
        let name = "early_\(UUID().uuidString.prefix(8).lowercased())"

        let first = try await app.client.post("/v1/auth/signup", json: ["username": name, "password": "long enough password"])
        #expect(first.status == 201)
        try expectBudget(first, name: "signup-ip", limit: 3, remaining: 2)
        // A taken name costs an attempt too, and says so.
        let taken = try await app.client.post("/v1/auth/signup", json: ["username": name, "password": "long enough password"])
        #expect(taken.status == 409)
        try expectBudget(taken, name: "signup-ip", limit: 3, remaining: 1)
        let third = try await app.client.post("/v1/auth/signup", json: ["username": name + "_2", "password": "long enough password"])
        #expect(third.status == 201)
        try expectBudget(third, name: "signup-ip", limit: 3, remaining: 0)

        let late = name + "_3"
        let refused = try await app.client.post("/v1/auth/signup", json: ["username": late, "password": "long enough password"])
        try expectRefusal(refused, name: "signup-ip", limit: 3)
        // Refused before anything was written.
        #expect(try await app.database.scalar("select count(*) from users where username = \(late)", as: Int.self) == 0)
    }

    @Test func refreshesPerAddressCountDownThenAre429() async throws {
        let app = try await TestService.started(over: .router) { $0.rateLimits.refreshPerAddress = RateLimit(name: "refresh-ip", limit: 3, windowSeconds: Self.window) }
        let user = try await app.signUp("refresher")

        var token = user.refreshToken
        for remaining in [2, 1] {
            let rotated = try await app.client.post("/v1/auth/refresh", json: ["refreshToken": token])
            #expect(rotated.status == 200)
            try expectBudget(rotated, name: "refresh-ip", limit: 3, remaining: remaining)
            token = try #require(rotated.json["refreshToken"].string)
        }
        // A dead token costs an attempt too, and says so.
        let bogus = try await app.client.post("/v1/auth/refresh", json: ["refreshToken": String(repeating: "A", count: 43)])
        #expect(bogus.status == 401)
        try expectBudget(bogus, name: "refresh-ip", limit: 3, remaining: 0)

        let refused = try await app.client.post("/v1/auth/refresh", json: ["refreshToken": token])
        try expectRefusal(refused, name: "refresh-ip", limit: 3)
    }

    @Test func aRefusedRefreshLeavesTheTokenUsable() async throws {
        let app = try await TestService.started(over: .router) { $0.rateLimits.refreshPerAddress = RateLimit(name: "refresh-ip", limit: 1, windowSeconds: Self.window) }
        let user = try await app.signUp("patient")
        let first = try await app.client.post("/v1/auth/refresh", json: ["refreshToken": user.refreshToken])
        #expect(first.status == 200)
        let token = try #require(first.json["refreshToken"].string)
        let refused = try await app.client.post("/v1/auth/refresh", json: ["refreshToken": token])
        #expect(refused.status == 429)

        // The refused request must not have used the token: the client still holds the only
        // live token of its session, and spending it would make the retry look like reuse.
        let unused = try await app.database.scalar(
            """
            select count(*) from refresh_tokens
            where token_hash = sha256(convert_to(\(token), 'UTF8')) and used_at is null and revoked_at is null
            """, as: Int.self)
        #expect(unused == 1)
        #expect(try await app.database.scalar("select count(*) from refresh_tokens", as: Int.self) == 2)

        // Once the window has passed (its counters forgotten), the retry rotates normally.
        _ = try await app.database.execute("delete from rate_limit_hits")
        let retry = try await app.client.post("/v1/auth/refresh", json: ["refreshToken": token])
        #expect(retry.status == 200)
        #expect(retry.json["user"]["id"].string == user.id)
    }

    @Test func aRefusedLoginDoesNoPasswordHashing() async throws {
        let app = try await TestService.started(over: .router) {
            $0.rateLimits.loginFailuresPerUsernameAndAddress = RateLimit(name: "login-fail", limit: 2, windowSeconds: Self.window)
        }
        let username = "nobody_\(UUID().uuidString.prefix(8).lowercased())"
        let before = try await app.hashesPerformed()
        for _ in 0..<2 {
            #expect(try await app.client.logIn(username, "a wrong password").status == 401)
        }
        let afterAllowed = try await app.hashesPerformed()
        for _ in 0..<5 {
            #expect(try await app.client.logIn(username, "a wrong password").status == 429)
        }
        let afterRefused = try await app.hashesPerformed()
        #expect(afterAllowed - before == 2)  // unknown users are checked against a decoy hash
        #expect(afterRefused == afterAllowed)
    }

    /// Search has a budget per address too, shared by post and user search, counted in the
    /// instance's memory: refused with 429 and the same fields, and never a database write.
    @Test func searchesPerAddressCountDownInMemoryThenAre429() async throws {
        let app = try await TestService.started(over: .router) { $0.search.perAddress = RateLimit(name: "search-ip", limit: 3, windowSeconds: Self.window) }
        for remaining in [2, 1] {
            let search = try await app.client.get("/v1/search/posts?q=kiwi")
            #expect(search.status == 200)
            try expectBudget(search, name: "search-ip", limit: 3, remaining: remaining)
        }
        // A search the service refuses for its input counts too, and says so.
        let invalid = try await app.client.get("/v1/search/users?q=")
        #expect(invalid.status == 400)
        try expectBudget(invalid, name: "search-ip", limit: 3, remaining: 0)
        try expectRefusal(try await app.client.get("/v1/search/posts?q=kiwi"), name: "search-ip", limit: 3)
        try expectRefusal(try await app.client.get("/v1/search/users?q=kiwi"), name: "search-ip", limit: 3)

        // Another address keeps its own budget; other endpoints are not counted.
        let elsewhere = try await app.client.get("/v1/search/users?q=kiwi", from: "198.51.100.7")
        #expect(elsewhere.status == 200)
        try expectBudget(elsewhere, name: "search-ip", limit: 3, remaining: 2)
        #expect(try await app.client.get("/v1/posts").status == 200)
        #expect(try await app.count("select count(*) from rate_limit_hits") == 0)
    }

    /// The in-memory budget itself, on a clock the test moves: a window's searches pass, then
    /// 429 until the window ends; the next window starts afresh; and however many addresses
    /// search, it counts at most its capacity of them.
    @Test func theSearchBudgetReturnsWithTheNextWindowAndCountsBoundedAddresses() {
        let clock = TestClock(seconds: 6_010)
        let limiter = SearchRateLimiter(limit: RateLimit(name: "search-ip", limit: 2, windowSeconds: 60), capacity: 4, now: clock.read)
        let first = (1...3).map { _ in limiter.count("192.0.2.1") }
        #expect(first.map(\.allowed) == [true, true, false])
        #expect(first.map(\.remaining) == [1, 0, 0])
        #expect(first.map(\.resetSeconds) == [50, 50, 50])  // windows start every 60 s: 6,000 to 6,060
        #expect(limiter.count("192.0.2.2").allowed)

        clock.set(6_059.5)
        #expect(!limiter.count("192.0.2.1").allowed)
        #expect(limiter.count("192.0.2.1").resetSeconds == 1)
        clock.set(6_060)
        let next = limiter.count("192.0.2.1")
        #expect(next.allowed && next.remaining == 1 && next.resetSeconds == 60)

        for host in 1...100 { _ = limiter.count("203.0.113.\(host)") }
        #expect(limiter.countedAddresses == 4)
    }
}

/// A `RateLimit` or `RateLimit-Policy` item: `"name";key=value;…`.
private struct RateLimitItem: Equatable {
    var name: String
    var parameters: [String: Int]

    init?(_ text: some StringProtocol) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ";")
        guard let first = parts.first, first.hasPrefix("\""), first.hasSuffix("\""), first.count >= 2 else { return nil }
        name = String(first.dropFirst().dropLast())
        var parameters: [String: Int] = [:]
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, let value = Int(pair[1]) else { return nil }
            parameters[String(pair[0])] = value
        }
        self.parameters = parameters
    }

    static func list(_ field: String?) -> [RateLimitItem] {
        (field ?? "").split(separator: ",").compactMap(RateLimitItem.init)
    }
}

/// The attempt passed and the headers tell the budget and what is left of it.
private func expectBudget(
    _ response: TestClient.Response, name: String, limit: Int, remaining: Int,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    #expect(response.status != 429, sourceLocation: sourceLocation)
    let policy = RateLimitItem.list(response.header("RateLimit-Policy"))
    #expect(policy.contains { $0.name == name && $0.parameters["q"] == limit && $0.parameters["w"] == RateLimitTests.window },
            "policy: \(response.header("RateLimit-Policy") ?? "none")", sourceLocation: sourceLocation)
    let state = try #require(RateLimitItem(response.header("RateLimit") ?? ""), sourceLocation: sourceLocation)
    #expect(state.name == name, sourceLocation: sourceLocation)
    #expect(state.parameters["r"] == remaining, "RateLimit: \(response.header("RateLimit") ?? "")", sourceLocation: sourceLocation)
    let reset = try #require(state.parameters["t"], sourceLocation: sourceLocation)
    #expect((1...RateLimitTests.window).contains(reset), sourceLocation: sourceLocation)
}

/// A 429 problem that says when to retry and which budget is spent.
private func expectRefusal(
    _ response: TestClient.Response, name: String, limit: Int,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    #expect(response.status == 429, sourceLocation: sourceLocation)
    #expect(response.header("Content-Type") == "application/problem+json", sourceLocation: sourceLocation)
    #expect(response.json["code"].string == "rate_limited", sourceLocation: sourceLocation)
    let retryAfter = try #require(response.header("Retry-After").flatMap { Int($0) }, sourceLocation: sourceLocation)
    #expect((1...RateLimitTests.window).contains(retryAfter), sourceLocation: sourceLocation)
    let policy = RateLimitItem.list(response.header("RateLimit-Policy"))
    #expect(policy.contains { $0.name == name && $0.parameters["q"] == limit }, sourceLocation: sourceLocation)
    let state = try #require(RateLimitItem(response.header("RateLimit") ?? ""), sourceLocation: sourceLocation)
    #expect(state.name == name && state.parameters["r"] == 0, sourceLocation: sourceLocation)
    #expect(state.parameters["t"] == retryAfter, sourceLocation: sourceLocation)
}
