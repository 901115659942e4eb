import Foundation
import TestSupport
import Testing

/// Posts: create, read and delete, validation, text that comes back exactly from every list,
/// and idempotent creates, also when retried concurrently. Through the router: what is tested is
/// the routes, not HTTP.
@Suite struct PostTests {
    let app: TestService
    init() async throws { app = try await .started(over: .router) }

    @Test func createReadAndDeleteOwnPost() async throws {
        let user = try await app.signUp("poster")
        let created = try await app.client.post("/v1/posts", json: ["body": "  Hello, world  "], token: user.accessToken)
        #expect(created.status == 201)
        #expect(created.json["body"].string == "Hello, world")
        #expect(created.json["author"]["username"].string == user.username)
        #expect(created.json["likeCount"].int == 0)
        #expect(created.json["likedByMe"].bool == false)
        let createdAt = try #require(created.json["createdAt"].string)
        #expect(createdAt.count == 20 && createdAt.hasSuffix("Z"))  // no fractional seconds
        let id = try #require(created.json["id"].string)
        let read = try await app.client.get("/v1/posts/\(id)")
        #expect(read.json["id"].string == id)
        #expect(try await app.database.scalar("select post_count from users where id = \(user.id)::uuid", as: Int.self) == 1)
        let deleted = try await app.client.delete("/v1/posts/\(id)", token: user.accessToken)
        #expect(deleted.status == 204)
        #expect(try await app.client.get("/v1/posts/\(id)").status == 404)
        #expect(try await app.database.scalar("select post_count from users where id = \(user.id)::uuid", as: Int.self) == 0)
    }

    @Test func awkwardTextComesBackExactlyFromEveryList() async throws {
        // Lists write bodies and names from the result's bytes: quotes, backslashes, newlines,
        // tabs and multi-byte text must come out escaped and whole.
        let user = try await app.signUp("scribe")
        let awkward = "He said \"hi\" \\ then\nleft\ttabs é ✓ 🐦 </script>"
        try await app.updateProfile(["displayName": "Zoë \"Z\" ✓", "bio": "line\none \\ two"], of: user)
        let post = try await app.createPost(awkward, by: user)
        try await app.createComment(on: post, awkward, by: user)

        let global = try await app.client.get("/v1/posts")
        let listed = try #require(global.json["items"].array.first { $0["id"].string == post })
        #expect(listed["body"].string == awkward)
        #expect(listed["author"]["displayName"].string == "Zoë \"Z\" ✓")
        let comments = try await app.client.get("/v1/posts/\(post)/comments")
        #expect(comments.json["items"][0]["body"].string == awkward)
        #expect(comments.json["items"][0]["author"]["displayName"].string == "Zoë \"Z\" ✓")
        let profile = try await app.client.get("/v1/users/\(user.username)")
        #expect(profile.json["profile"]["displayName"].string == "Zoë \"Z\" ✓")
        #expect(profile.json["profile"]["bio"].string == "line\none \\ two")
        #expect(profile.json["posts"]["items"][0]["body"].string == awkward)
    }

    @Test func nobodyDeletesSomeoneElsesPost() async throws {
        let (owner, other) = try await app.signUp("owner", "other")
        let id = try await app.createPost("mine", by: owner)
        let refused = try await app.client.delete("/v1/posts/\(id)", token: other.accessToken)
        #expect(refused.status == 403)
        #expect(try await app.client.get("/v1/posts/\(id)").status == 200)
        #expect(try await app.client.delete("/v1/posts/\(id)").status == 401)
        #expect(try await app.client.delete("/v1/posts/\(UUID())", token: other.accessToken).status == 404)
        #expect(try await app.client.get("/v1/posts/not-a-uuid").status == 400)
    }

    @Test func badBodiesAre422AndServerFieldsCannotBeSet() async throws {
        let user = try await app.signUp("validator")
        for body in ["", "   ", String(repeating: "a", count: 501)] {
            let response = try await app.client.post("/v1/posts", json: ["body": body], token: user.accessToken)
            #expect(response.status == 422)
        }
        let exactly500 = try await app.client.post("/v1/posts", json: ["body": String(repeating: "é", count: 500)], token: user.accessToken)
        #expect(exactly500.status == 201)
        let massAssignment = try await app.client.post(
            "/v1/posts", json: ["body": "x", "likeCount": 1_000, "authorId": UUID().uuidString], token: user.accessToken)
        #expect(massAssignment.status == 422)
        #expect(try await app.database.scalar("select count(*) from posts where author_id = \(user.id)::uuid", as: Int.self) == 1)
    }

    @Test func anIdempotencyKeyReplaysTheFirstCreate() async throws {
        let user = try await app.signUp("retrier")
        let key = UUID().uuidString
        let first = try await app.client.post("/v1/posts", json: ["body": "once"], token: user.accessToken, headers: ["Idempotency-Key": key])
        let retry = try await app.client.post("/v1/posts", json: ["body": "once"], token: user.accessToken, headers: ["Idempotency-Key": key])
        #expect(first.status == 201 && retry.status == 201)
        #expect(first.json["id"] == retry.json["id"])
        #expect(retry.header("Idempotent-Replayed") == "true")
        #expect(try await app.database.scalar("select count(*) from posts where author_id = \(user.id)::uuid", as: Int.self) == 1)
        let different = try await app.client.post("/v1/posts", json: ["body": "twice"], token: user.accessToken, headers: ["Idempotency-Key": key])
        #expect(different.status == 422)
        // Keys belong to their caller: another user's same key creates their own post.
        let other = try await app.signUp("other_retrier")
        let theirs = try await app.client.post("/v1/posts", json: ["body": "once"], token: other.accessToken, headers: ["Idempotency-Key": key])
        #expect(theirs.status == 201 && theirs.json["id"] != first.json["id"])
    }

    @Test func concurrentRetriesWithOneKeyCreateOnce() async throws {
        let user = try await app.signUp("racer")
        let key = UUID().uuidString
        let client = app.client
        let ids = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await client.post("/v1/posts", json: ["body": "race"], token: user.accessToken, headers: ["Idempotency-Key": key]).json["id"].string
                }
            }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(Set(ids.compactMap { $0 }).count == 1)
        #expect(try await app.database.scalar("select count(*) from posts where author_id = \(user.id)::uuid", as: Int.self) == 1)
    }
}
