import Foundation
import Testing

/// Every 201 names what it created in `Location`, a path that reads it back; a replay with the
/// same `Idempotency-Key`, and a create whose commit lost its answer, name it too. Over HTTP:
/// the header must reach the client.
@Suite struct LocationTests {
    let app: TestService
    init() async throws { app = try await .started(over: .socket) }

    @Test func aPostACommentAReplyAndASignUpNameWhereTheyLive() async throws {
        let (alice, bob) = try await app.signUp("loc", "locb")

        let post = try await app.client.post("/v1/posts", json: ["body": "located"], token: alice.accessToken)
        #expect(post.status == 201)
        let postID = try #require(post.json["id"].string)
        #expect(post.header("Location") == "/v1/posts/\(postID)")
        let readPost = try await app.client.get(try #require(post.header("Location")))
        #expect(readPost.status == 200 && readPost.json["body"].string == "located")

        let comment = try await app.client.post("/v1/posts/\(postID)/comments", json: ["body": "a comment"], token: bob.accessToken)
        #expect(comment.status == 201)
        let commentID = try #require(comment.json["id"].string)
        #expect(comment.header("Location") == "/v1/comments/\(commentID)")
        let readComment = try await app.client.get(try #require(comment.header("Location")))
        #expect(readComment.status == 200)
        #expect(readComment.json == comment.json)

        let reply = try await app.client.post(
            "/v1/posts/\(postID)/comments", json: ["body": "a reply", "parentId": commentID], token: alice.accessToken)
        let replyID = try #require(reply.json["id"].string)
        #expect(reply.header("Location") == "/v1/comments/\(replyID)")
        let readReply = try await app.client.get("/v1/comments/\(replyID)", token: bob.accessToken)
        #expect(readReply.status == 200 && readReply.json["parentId"].string == commentID)

        let name = "located_\(UUID().uuidString.prefix(6).lowercased())"
        let signUp = try await app.client.post("/v1/auth/signup", json: ["username": name, "password": "long enough password"])
        #expect(signUp.status == 201)
        #expect(signUp.header("Location") == "/v1/users/\(name)")
        #expect(try await app.client.get("/v1/users/\(name)").json["profile"]["username"].string == name)
    }

    @Test func aReplayNamesTheSameResource() async throws {
        let alice = try await app.signUp("locr")
        let key = UUID().uuidString
        let first = try await app.client.post("/v1/posts", json: ["body": "once"], token: alice.accessToken, headers: ["Idempotency-Key": key])
        let again = try await app.client.post("/v1/posts", json: ["body": "once"], token: alice.accessToken, headers: ["Idempotency-Key": key])
        #expect(again.header("Idempotent-Replayed") == "true")
        #expect(first.header("Location") != nil)
        #expect(again.header("Location") == first.header("Location"))

        let name = "replayed_\(UUID().uuidString.prefix(6).lowercased())"
        let signUpKey = UUID().uuidString
        let body = ["username": name, "password": "long enough password"]
        _ = try await app.client.post("/v1/auth/signup", json: body, headers: ["Idempotency-Key": signUpKey])
        let replayed = try await app.client.post("/v1/auth/signup", json: body, headers: ["Idempotency-Key": signUpKey])
        #expect(replayed.header("Idempotent-Replayed") == "true")
        #expect(replayed.header("Location") == "/v1/users/\(name)")
    }

    @Test func aCreateReadBackAfterALostCommitNamesItsRow() async throws {
        let alice = try await app.signUp("locl")
        app.service.pool.faults.breakAfterCommit(next: 1)
        let post = try await app.client.post("/v1/posts", json: ["body": "read back"], token: alice.accessToken)
        #expect(post.status == 201, "\(post.text)")
        #expect(post.header("Location") == "/v1/posts/\(try #require(post.json["id"].string))")
    }

    @Test func aCommentThatIsNotThereIs404AndAMalformedIdIs400() async throws {
        let missing = try await app.client.get("/v1/comments/\(UUID().uuidString.lowercased())")
        #expect(missing.status == 404 && missing.json["detail"].string == "no such comment")
        #expect(try await app.client.get("/v1/comments/not-a-uuid").status == 400)
    }
}
