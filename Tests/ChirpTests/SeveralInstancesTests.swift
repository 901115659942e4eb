import Chirp
import Foundation
import TestSupport
import Testing

/// Two instances of the service on one database, as behind a load balancer that may send each
/// request to either: what one hands out, the other honours, because it lives in PostgreSQL
/// or is signed with the shared secret.
@Suite struct SeveralInstancesTests {
    let first: TestService
    let second: TestServiceInstance

    init() async throws {
        let budget: (inout ChirpConfiguration) throws -> Void = {
            $0.rateLimits.loginFailuresPerUsernameAndAddress = RateLimit(name: "login-fail", limit: 3, windowSeconds: 3_600)
        }
        first = try await TestService.started(over: .router, configure: budget)
        second = try TestServiceInstance(on: first.database, over: .router, configure: budget)
    }

    @Test func tokensAndRefreshRotationHoldOnEitherInstance() async throws {
        let user = try await first.signUp("both")
        #expect(try await second.client.get("/v1/me", token: user.accessToken).json["username"].string == user.username)
        let rotated = try await second.client.post("/v1/auth/refresh", json: ["refreshToken": user.refreshToken])
            .requiring(200, "refresh on the second instance")
        // The first instance sees the rotation: the old token is a replay, and it revokes the chain.
        #expect(try await first.client.post("/v1/auth/refresh", json: ["refreshToken": user.refreshToken]).status == 401)
        let successor = try #require(rotated.json["refreshToken"].string)
        #expect(try await second.client.post("/v1/auth/refresh", json: ["refreshToken": successor]).status == 401)
    }

    @Test func aCursorFromOneInstancePagesOnTheOther() async throws {
        let author = try await first.signUp("pages")
        try await first.insertPosts(5, by: author, prefix: "paged ")
        let page = try await first.client.get("/v1/users/\(author.username)/posts?limit=2").requiring(200, "first page")
        let cursor = try #require(page.json["nextCursor"].string)
        let next = try await second.client.get("/v1/users/\(author.username)/posts?limit=2&cursor=\(cursor)").requiring(200, "next page")
        let ids = page.json["items"].array.compactMap { $0["id"].string } + next.json["items"].array.compactMap { $0["id"].string }
        #expect(ids.count == 4 && Set(ids).count == 4)
    }

    @Test func anIdempotentRetryOnTheOtherInstanceReplaysTheFirstAnswer() async throws {
        let user = try await first.signUp("retry")
        let key = UUID().uuidString
        let created = try await first.client.post("/v1/posts", json: ["body": "once"], token: user.accessToken, headers: ["Idempotency-Key": key])
        let retried = try await second.client.post("/v1/posts", json: ["body": "once"], token: user.accessToken, headers: ["Idempotency-Key": key])
        #expect(created.status == 201 && retried.status == 201)
        #expect(retried.header("Idempotent-Replayed") == "true")
        #expect(retried.json["id"].string == created.json["id"].string)
        #expect(try await first.database.scalar("select count(*)::int from posts where author_id = \(user.id)::uuid", as: Int.self) == 1)
    }

    @Test func aLoginBudgetIsSpentAcrossInstances() async throws {
        let user = try await first.signUp("budget")
        #expect(try await first.client.logIn(user.username, "wrong").status == 401)
        #expect(try await second.client.logIn(user.username, "wrong").status == 401)
        #expect(try await first.client.logIn(user.username, "wrong").status == 401)
        #expect(try await second.client.logIn(user.username, user.password).status == 429)
    }

    @Test func anExploreCursorFromOneInstancePagesOnTheOther() async throws {
        let (alice, bob) = try await first.signUp("alice", "bob")
        for index in 0..<4 {
            let post = try await first.createPost("ranked \(index)", by: alice)
            try await first.like(post, by: bob)
        }
        let page = try await first.client.get("/v1/explore?limit=2").requiring(200, "first page")
        let cursor = try #require(page.json["nextCursor"].string)
        let next = try await second.client.get("/v1/explore?limit=2&cursor=\(cursor)")
        #expect(next.status == 200, "the snapshot the first instance ranked serves the second")
        let ids = page.json["items"].array.compactMap { $0["id"].string } + next.json["items"].array.compactMap { $0["id"].string }
        #expect(Set(ids).count == ids.count)
    }
}
