import Foundation
import Postgres
import TestSupport
import Testing

/// A write whose connection breaks after the server committed it, before its answer is read
/// (injected: `PostgresFaults`): the client gets the answer the write deserved, from what was
/// stored, and the write is there exactly once. Before, each of these was a 503 for a write
/// that existed, which a client would retry into a duplicate or give up on.
@Suite struct LostCommitTests {
    let app: TestService
    init() async throws { app = try await .started(over: .router) }

    @Test func aPostIsReadBackUnderTheIdItWasGiven() async throws {
        let user = try await app.signUp("lost")
        app.service.pool.faults.breakAfterCommit(next: 1)
        let created = try await app.client.post("/v1/posts", json: ["body": "stored as the line went down"], token: user.accessToken)
        #expect(created.status == 201, "\(created.text)")
        #expect(created.json["body"].string == "stored as the line went down")
        #expect(try await app.count("select count(*) from posts where author_id = \(user.id)::uuid") == 1)
        let id = try #require(created.json["id"].string)
        #expect(try await app.client.get("/v1/posts/\(id)").status == 200)
    }

    @Test func aPostWithAnIdempotencyKeyAnswersItsRecordedResponseAndReplaysIt() async throws {
        let user = try await app.signUp("lostkey")
        app.service.pool.faults.breakAfterCommit(next: 1)
        let key = UUID().uuidString
        let created = try await app.client.post("/v1/posts", json: ["body": "keyed"], token: user.accessToken, headers: ["Idempotency-Key": key])
        #expect(created.status == 201, "\(created.text)")
        #expect(created.header("Idempotent-Replayed") == nil)
        let retried = try await app.client.post("/v1/posts", json: ["body": "keyed"], token: user.accessToken, headers: ["Idempotency-Key": key])
        #expect(retried.status == 201 && retried.header("Idempotent-Replayed") == "true")
        #expect(retried.json["id"] == created.json["id"])
        #expect(try await app.count("select count(*) from posts where author_id = \(user.id)::uuid") == 1)
    }

    @Test func aCommentIsReadBack() async throws {
        let (alice, post) = (try await app.signUp("lostc"), try await app.createPost("a thread", by: try await app.signUp("op")))
        app.service.pool.faults.breakAfterCommit(next: 1)
        let created = try await app.client.post("/v1/posts/\(post)/comments", json: ["body": "first!"], token: alice.accessToken)
        #expect(created.status == 201, "\(created.text)")
        #expect(created.json["body"].string == "first!")
        #expect(try await app.count("select count(*) from comments where author_id = \(alice.id)::uuid") == 1)
    }

    @Test func aLikeAndADeleteAnswerWhatTheyDid() async throws {
        let (alice, bob) = try await app.signUp("lostl", "lostd")
        let post = try await app.createPost("liked", by: bob)
        app.service.pool.faults.breakAfterCommit(next: 1)
        let like = try await app.client.put("/v1/posts/\(post)/like", token: alice.accessToken)
        #expect(like.status == 200, "\(like.text)")
        #expect(like.json["likeCount"].int == 1)
        #expect(try await app.count("select count(*) from likes where post_id = \(post)::uuid") == 1)

        app.service.pool.faults.breakAfterCommit(next: 1)
        let deleted = try await app.client.delete("/v1/posts/\(post)", token: bob.accessToken)
        #expect(deleted.status == 204, "\(deleted.text)")
        #expect(try await app.count("select count(*) from posts where id = \(post)::uuid") == 0)
    }

    /// A login's writes (its attempt counted, its session started) each lose their answer.
    @Test(arguments: [0, 1])
    func aLoginAnswersWithItsSession(skipping: Int) async throws {
        let user = try await app.signUp("lostlogin")
        app.service.authPool.faults.breakAfterCommit(next: 1, skipping: skipping)
        let login = try await app.client.logIn(user.username, user.password)
        #expect(login.status == 200, "\(login.text)")
        let token = try #require(login.json["accessToken"].string)
        #expect(try await app.client.get("/v1/me", token: token).status == 200)
    }

    /// A refresh's writes each lose their answer: the rotation is read back through the
    /// successor it stored, which works, and the presented token is spent.
    @Test(arguments: [0, 1])
    func aRefreshIsReadBackThroughItsSuccessor(skipping: Int) async throws {
        let user = try await app.signUp("lostrefresh")
        app.service.authPool.faults.breakAfterCommit(next: 1, skipping: skipping)
        let rotated = try await app.client.post("/v1/auth/refresh", json: ["refreshToken": user.refreshToken])
        #expect(rotated.status == 200, "\(rotated.text)")
        let successor = try #require(rotated.json["refreshToken"].string)
        #expect(try await app.client.get("/v1/me", token: try #require(rotated.json["accessToken"].string)).status == 200)
        #expect(try await app.client.post("/v1/auth/refresh", json: ["refreshToken": successor]).status == 200)
    }

    @Test func aSignUpAnswersWithAWorkingSession() async throws {
        app.service.authPool.faults.breakAfterCommit(next: 1)
        let name = "lostsign_\(UUID().uuidString.prefix(6).lowercased())"
        let created = try await app.client.post("/v1/auth/signup", json: ["username": name, "password": "long enough password"])
        #expect(created.status == 201, "\(created.text)")
        let token = try #require(created.json["accessToken"].string)
        let me = try await app.client.get("/v1/me", token: token)
        #expect(me.status == 200)
        #expect(me.json["username"].string == name)
        #expect(try await app.count("select count(*) from users where username = \(name)") == 1)
    }
}
