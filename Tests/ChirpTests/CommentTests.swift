import Foundation
import Testing

/// Comment threads and replies: exact counts, validation, who may delete, bound cursors and
/// idempotent creates. Through the router: what is tested is the routes, not HTTP.
@Suite struct CommentTests {
    let app: TestService
    init() async throws { app = try await .started(over: .router) }

    @Test func threadsReadOldestFirstWithRepliesAndExactCounts() async throws {
        let (alice, bob, carol, post) = try await app.threeUsersAndAPost("discuss")

        let created = try await app.client.post("/v1/posts/\(post)/comments", json: ["body": "  first!  "], token: bob.accessToken)
        #expect(created.status == 201)
        #expect(created.json.keys == ["id", "postId", "parentId", "author", "body", "createdAt", "replyCount", "editedAt"])
        #expect(created.json["body"].string == "first!")
        #expect(created.json["postId"].string == post)
        #expect(created.json["parentId"].isNull)
        #expect(created.json["author"]["id"].string == bob.id)
        #expect(created.json["author"]["username"].string == bob.username)
        #expect(created.json["replyCount"].int == 0)
        #expect(isISO8601Seconds(created.json["createdAt"].string))
        let c1 = try #require(created.json["id"].string)
        let c2 = try await app.createComment(on: post, "second", by: carol)
        let c3 = try await app.createComment(on: post, "third", by: bob)

        let reply = try await app.client.post("/v1/posts/\(post)/comments", json: ["body": "reply one", "parentId": c1], token: alice.accessToken)
        #expect(reply.status == 201)
        #expect(reply.json["parentId"].string == c1)
        let r1 = try #require(reply.json["id"].string)
        let r2 = try await app.createComment(on: post, "reply two", parentId: c1, by: carol)

        let thread = try await app.client.get("/v1/posts/\(post)/comments")
        #expect(thread.status == 200)
        #expect(thread.json["items"].ids == [c1, c2, c3])
        #expect(thread.json["items"][0]["replyCount"].int == 2)
        #expect(thread.json["items"][1]["replyCount"].int == 0)
        #expect(thread.json["hasMore"].bool == false)
        #expect(thread.json["nextCursor"].isNull)

        let replies = try await app.client.get("/v1/comments/\(c1)/replies")
        #expect(replies.status == 200)
        #expect(replies.json["items"].ids == [r1, r2])
        #expect(replies.json["items"].array.allSatisfy { $0["parentId"].string == c1 && $0["postId"].string == post })
        let none = try await app.client.get("/v1/comments/\(c2)/replies")
        #expect(none.status == 200 && none.json["items"].array.isEmpty)

        let shown = try await app.client.get("/v1/posts/\(post)")
        #expect(shown.json["commentCount"].int == 5)  // replies count too
        #expect(try await app.count("select comment_count from posts where id = \(post)::uuid") == 5)
        #expect(try await app.count("select reply_count from comments where id = \(c1)::uuid") == 2)
    }

    @Test func repliesAnswerOnlyTopLevelCommentsOfTheSamePost() async throws {
        let (alice, bob) = try await app.signUp("alice", "bob")
        let post = try await app.createPost("one", by: alice)
        let otherPost = try await app.createPost("two", by: alice)
        let top = try await app.createComment(on: post, "top", by: bob)
        let reply = try await app.createComment(on: post, "reply", parentId: top, by: bob)
        let elsewhere = try await app.createComment(on: otherPost, "elsewhere", by: bob)

        let bad: [(Any, String)] = [
            (reply, "reply to a reply"),
            (elsewhere, "parent on another post"),
            (UUID().uuidString.lowercased(), "unknown parent"),
            ("not-a-uuid", "malformed parent"),
            (42, "parent of the wrong type"),
        ]
        for (parentId, label) in bad {
            let response = try await app.client.post("/v1/posts/\(post)/comments", json: ["body": "x", "parentId": parentId], token: bob.accessToken)
            #expect(response.status == 422, "\(label)")
            #expect(response.json["code"].string == "validation_failed", "\(label)")
        }
        #expect(try await app.count("select count(*) from comments") == 3)
        #expect(try await app.count("select comment_count from posts where id = \(post)::uuid") == 2)
        #expect(try await app.count("select reply_count from comments where id = \(top)::uuid") == 1)
    }

    @Test func badBodiesUnknownPostsAndAnonymousCallers() async throws {
        let alice = try await app.signUp("alice")
        let post = try await app.createPost("target", by: alice)
        let flags = String(repeating: "🇺🇸", count: 1001)  // 1,001 characters on screen, 2,002 code points
        let bodies: [([String: Any], String)] = [
            (["body": ""], "empty"),
            (["body": " \n\t "], "blank"),
            (["body": String(repeating: "x", count: 2001)], "too long"),
            (["body": flags], "too long in code points"),
            (["body": "bell\u{7}"], "control character"),
            (["parentId": NSNull()], "no body"),
            (["body": 7], "body of the wrong type"),
            (["body": "ok", "replyCount": 99], "server-owned field"),
        ]
        for (json, label) in bodies {
            let response = try await app.client.post("/v1/posts/\(post)/comments", json: json, token: alice.accessToken)
            #expect(response.status == 422, "\(label): \(response.text)")
            #expect(response.json["code"].string == "validation_failed", "\(label)")
        }
        let longest = try await app.client.post("/v1/posts/\(post)/comments", json: ["body": String(repeating: "y", count: 2000)], token: alice.accessToken)
        #expect(longest.status == 201)

        let unknown = try await app.client.post("/v1/posts/\(UUID().uuidString)/comments", json: ["body": "hello"], token: alice.accessToken)
        #expect(unknown.status == 404 && unknown.json["code"].string == "not_found")
        let unknownWithParent = try await app.client.post(
            "/v1/posts/\(UUID().uuidString)/comments", json: ["body": "hello", "parentId": UUID().uuidString], token: alice.accessToken)
        #expect(unknownWithParent.status == 404)
        let malformed = try await app.client.post("/v1/posts/nope/comments", json: ["body": "hello"], token: alice.accessToken)
        #expect(malformed.status == 400 && malformed.json["code"].string == "invalid_parameter")
        let anonymous = try await app.client.post("/v1/posts/\(post)/comments", json: ["body": "hello"])
        #expect(anonymous.status == 401)
        #expect(anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        let notJSON = try await app.client.post("/v1/posts/\(post)/comments", raw: #"{"body":"x"#, token: alice.accessToken)
        #expect(notJSON.status == 400 && notJSON.json["code"].string == "malformed_json")

        for path in ["/v1/posts/\(UUID().uuidString)/comments", "/v1/comments/\(UUID().uuidString)/replies"] {
            let response = try await app.client.get(path)
            #expect(response.status == 404, "\(path)")
        }
        for path in ["/v1/posts/123/comments", "/v1/comments/123/replies"] {
            let response = try await app.client.get(path)
            #expect(response.status == 400, "\(path)")
        }
        #expect(try await app.count("select count(*) from comments") == 1)
    }

    /// The schema's length checks count code points; so must validation, or text that is
    /// short on screen but long in code points reaches the database and fails there.
    @Test func lengthLimitsCountCodePointsLikeTheDatabase() async throws {
        let alice = try await app.signUp("alice")
        let flags = String(repeating: "🇺🇸", count: 300)  // 300 characters, 600 code points
        let post = try await app.client.post("/v1/posts", json: ["body": flags], token: alice.accessToken)
        #expect(post.status == 422 && post.json["code"].string == "validation_failed")
        let target = try await app.createPost("short", by: alice)
        let fits = try await app.client.post("/v1/posts/\(target)/comments", json: ["body": flags], token: alice.accessToken)
        #expect(fits.status == 201 && fits.json["body"].string == flags)
        let tooMany = try await app.client.post(
            "/v1/posts/\(target)/comments", json: ["body": String(repeating: "🇺🇸", count: 1001)], token: alice.accessToken)
        #expect(tooMany.status == 422)
        let displayName = try await app.client.patch("/v1/me", json: ["displayName": String(repeating: "🇺🇸", count: 26)], token: alice.accessToken)
        #expect(displayName.status == 422)
    }

    @Test func commentAuthorsAndPostAuthorsDeleteOthersCannot() async throws {
        let (alice, bob, carol, dave) = try await app.signUp("alice", "bob", "carol", "dave")
        let post = try await app.createPost("moderated", by: alice)
        let byBob = try await app.createComment(on: post, "bob one", by: bob)
        let byBobToo = try await app.createComment(on: post, "bob two", by: bob)
        let byCarol = try await app.createComment(on: post, "carol", by: carol)
        try await app.createComment(on: post, "reply to carol", parentId: byCarol, by: bob)

        // In order: who deletes what, and the status (and code) they get.
        let attempts: [(comment: String, by: TestUser?, status: Int, code: String?, label: String)] = [
            (byBob, bob, 204, nil, "the comment's author"),
            (byBobToo, alice, 204, nil, "the post's author"),
            (byCarol, dave, 403, "forbidden", "a stranger"),
            (byCarol, bob, 403, nil, "a reply's author, on the comment it answers"),
            (byBob, bob, 404, nil, "already deleted"),
            (UUID().uuidString, bob, 404, "not_found", "unknown"),
            ("xyz", bob, 400, nil, "a malformed id"),
            (byCarol, nil, 401, nil, "anonymous"),
        ]
        for attempt in attempts {
            let response = try await app.client.delete("/v1/comments/\(attempt.comment)", token: attempt.by?.accessToken)
            #expect(response.status == attempt.status, "\(attempt.label)")
            if let code = attempt.code { #expect(response.json["code"].string == code, "\(attempt.label)") }
        }
        #expect(try await app.count("select count(*) from comments where id = \(byCarol)::uuid") == 1)
        #expect(try await app.count("select comment_count from posts where id = \(post)::uuid") == 2)

        // Deleting a comment takes its replies with it, and the counter follows.
        let withReplies = try await app.client.delete("/v1/comments/\(byCarol)", token: carol.accessToken)
        #expect(withReplies.status == 204)
        #expect(try await app.count("select count(*) from comments where post_id = \(post)::uuid") == 0)
        #expect(try await app.count("select comment_count from posts where id = \(post)::uuid") == 0)
        let thread = try await app.client.get("/v1/posts/\(post)/comments")
        #expect(thread.json["items"].array.isEmpty)
    }

    @Test func sevenCommentsPageByThreeWithBoundCursors() async throws {
        let alice = try await app.signUp("alice")
        let post = try await app.createPost("paged", by: alice)
        let otherPost = try await app.createPost("other", by: alice)
        var ids: [String] = []
        for index in 0..<7 { ids.append(try await app.createComment(on: post, "comment \(index)", by: alice)) }
        let (items, sizes) = try await app.walk("/v1/posts/\(post)/comments", limit: 3)
        #expect(sizes == [3, 3, 1])
        #expect(items.ids == ids)

        var replies: [String] = []
        for index in 0..<4 { replies.append(try await app.createComment(on: post, "reply \(index)", parentId: ids[0], by: alice)) }
        let (replyItems, replySizes) = try await app.walk("/v1/comments/\(ids[0])/replies", limit: 3)
        #expect(replySizes == [3, 1])
        #expect(replyItems.ids == replies)

        let first = try await app.client.get("/v1/posts/\(post)/comments?limit=3").requiring(200, "first page")
        let cursor = try #require(first.json["nextCursor"].string)
        let replyPage = try await app.client.get("/v1/comments/\(ids[0])/replies?limit=3").requiring(200, "first page of replies")
        let replyCursor = try #require(replyPage.json["nextCursor"].string)
        for bad in ["/v1/posts/\(otherPost)/comments?cursor=\(cursor)",
                    "/v1/comments/\(ids[0])/replies?cursor=\(cursor)",
                    "/v1/posts/\(post)/comments?cursor=\(replyCursor)",
                    "/v1/comments/\(ids[1])/replies?cursor=\(replyCursor)",
                    "/v1/posts/\(post)/likes?cursor=\(cursor)",
                    "/v1/posts/\(post)/comments?cursor=\(cursor.dropFirst(2))",
                    "/v1/posts/\(post)/comments?cursor=\(String(repeating: "A", count: 300))"] {
            let response = try await app.client.get(bad)
            #expect(response.status == 400, "\(bad)")
            #expect(response.json["code"].string == "invalid_cursor", "\(bad)")
        }
    }

    @Test func anIdempotencyKeyMakesOneCommentAndReplaysIt() async throws {
        let (alice, bob) = try await app.signUp("alice", "bob")
        let post = try await app.createPost("retry me", by: alice)
        let path = "/v1/posts/\(post)/comments"
        let key = ["Idempotency-Key": "comment-\(UUID().uuidString)"]
        let first = try await app.client.post(path, json: ["body": "only once"], token: bob.accessToken, headers: key)
        let second = try await app.client.post(path, json: ["body": "only once"], token: bob.accessToken, headers: key)
        #expect(first.status == 201 && second.status == 201)
        #expect(first.body == second.body)
        #expect(first.header("Idempotent-Replayed") == nil)
        #expect(second.header("Idempotent-Replayed") == "true")
        #expect(try await app.count("select count(*) from comments where post_id = \(post)::uuid") == 1)
        #expect(try await app.count("select comment_count from posts where id = \(post)::uuid") == 1)

        let reused = try await app.client.post(path, json: ["body": "something else"], token: bob.accessToken, headers: key)
        #expect(reused.status == 422)
        #expect(reused.json["code"].string == "idempotency_key_reused")
        // Keys belong to their caller: the same key from someone else is a new comment.
        let otherCaller = try await app.client.post(path, json: ["body": "only once"], token: alice.accessToken, headers: key)
        #expect(otherCaller.status == 201 && otherCaller.header("Idempotent-Replayed") == nil)
        #expect(try await app.count("select count(*) from comments where post_id = \(post)::uuid") == 2)
    }
}
