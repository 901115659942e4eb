import Foundation
import Testing

/// Likes: idempotent, answering the authoritative count, exact under concurrency, listed newest
/// first with bound cursors. Through the router: what is tested is the routes and the counters,
/// not HTTP.
@Suite struct LikeTests {
    let app: TestService
    init() async throws { app = try await .started(over: .router) }

    @Test func likeAndUnlikeAreIdempotentAndAnswerTheAuthoritativeCount() async throws {
        let (_, bob, carol, post) = try await app.threeUsersAndAPost("like me")

        let first = try await app.client.put("/v1/posts/\(post)/like", token: bob.accessToken)
        #expect(first.status == 200)
        #expect(first.json.keys == ["postId", "liked", "likeCount"])
        #expect(first.json["postId"].string == post)
        #expect(first.json["liked"].bool == true)
        #expect(first.json["likeCount"].int == 1)
        let again = try await app.client.put("/v1/posts/\(post)/like", token: bob.accessToken)
        #expect(again.status == 200 && again.json["likeCount"].int == 1)
        let other = try await app.client.put("/v1/posts/\(post)/like", token: carol.accessToken)
        #expect(other.json["likeCount"].int == 2)

        let unlike = try await app.client.delete("/v1/posts/\(post)/like", token: bob.accessToken)
        #expect(unlike.status == 200)
        #expect(unlike.json["liked"].bool == false)
        #expect(unlike.json["likeCount"].int == 1)
        let unlikeAgain = try await app.client.delete("/v1/posts/\(post)/like", token: bob.accessToken)
        #expect(unlikeAgain.status == 200 && unlikeAgain.json["likeCount"].int == 1)

        #expect(try await app.count("select like_count from posts where id = \(post)::uuid") == 1)
        #expect(try await app.count("select count(*) from likes where post_id = \(post)::uuid") == 1)
    }

    @Test func sixtyFourConcurrentIdenticalLikesMakeOneLike() async throws {
        let (alice, bob) = try await app.signUp("alice", "bob")
        let post = try await app.createPost("hammer me", by: alice)
        let responses = try await withThrowingTaskGroup(of: TestClient.Response.self) { group in
            for _ in 0..<64 {
                group.addTask { try await app.client.put("/v1/posts/\(post)/like", token: bob.accessToken) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.count == 64)
        #expect(responses.allSatisfy { $0.status == 200 }, "\(Set(responses.map(\.status)))")
        // Each answer is the count after its own transaction: the one like, never 0 or 2.
        #expect(responses.allSatisfy { $0.json["likeCount"].int == 1 && $0.json["liked"].bool == true })
        #expect(try await app.count("select count(*) from likes where post_id = \(post)::uuid") == 1)
        #expect(try await app.count("select like_count from posts where id = \(post)::uuid") == 1)
    }

    @Test func aLikeStormLeavesEveryCounterEqualToItsRows() async throws {
        let author = try await app.signUp("author")
        let users = try await app.signUp("storm", count: 16)
        var posts: [String] = []
        for index in 0..<4 { posts.append(try await app.createPost("storm post \(index)", by: author)) }
        let requests = (0..<320).map { _ in
            (users[Int.random(in: 0..<users.count)], posts[Int.random(in: 0..<posts.count)], Bool.random())
        }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for (user, post, like) in requests {
                group.addTask {
                    try await app.client.request(like ? "PUT" : "DELETE", "/v1/posts/\(post)/like", token: user.accessToken).status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.count == 320)
        #expect(statuses.allSatisfy { $0 == 200 }, "\(Set(statuses))")
        for post in posts {
            let counter = try await app.count("select like_count from posts where id = \(post)::uuid")
            let rows = try await app.count("select count(*) from likes where post_id = \(post)::uuid")
            #expect(counter == rows, "post \(post)")
            // What the API shows agrees with the rows too.
            let shown = try await app.client.get("/v1/posts/\(post)")
            #expect(shown.json["likeCount"].int == rows)
        }
    }

    @Test func likedByMeIsTheViewersOwn() async throws {
        let (_, bob, carol, post) = try await app.threeUsersAndAPost("do you like it")
        try await app.like(post, by: bob)

        let asBob = try await app.client.get("/v1/posts/\(post)", token: bob.accessToken)
        #expect(asBob.json["likedByMe"].bool == true)
        #expect(asBob.json["likeCount"].int == 1)
        let asCarol = try await app.client.get("/v1/posts/\(post)", token: carol.accessToken)
        #expect(asCarol.json["likedByMe"].bool == false)
        let anonymous = try await app.client.get("/v1/posts/\(post)")
        #expect(anonymous.status == 200)
        #expect(anonymous.json["likedByMe"].bool == false)

        try await app.unlike(post, by: bob)
        let afterUnlike = try await app.client.get("/v1/posts/\(post)", token: bob.accessToken)
        #expect(afterUnlike.json["likedByMe"].bool == false)
        #expect(afterUnlike.json["likeCount"].int == 0)
    }

    /// A viewer with hundreds of likes sees exactly their own, post by post, on every page of
    /// the timeline and of explore; another viewer sees only theirs, an anonymous one none.
    @Test func likedByMeIsExactForAViewerWithHundredsOfLikes() async throws {
        let (alice, bob, carol) = try await app.signUp("alice", "bob", "carol")
        try await app.insertPosts(400, by: alice, prefix: "many ")
        // Past the API: Bob likes all but every fourth post (300 likes), Carol likes one. Then
        // explore ranks a fresh snapshot.
        try await app.database.execute("""
            insert into likes (user_id, post_id)
            select \(bob.id)::uuid, id from posts where author_id = \(alice.id)::uuid and substring(body from 6)::int % 4 <> 0
            """)
        try await app.database.execute("insert into likes (user_id, post_id) select \(carol.id)::uuid, id from posts where body = 'many 4'")
        try await app.database.execute("delete from explore_snapshots")
        let likedByBob = Set((1...400).filter { $0 % 4 != 0 }.map { "many \($0)" })

        for path in ["/v1/posts", "/v1/explore"] {
            let items = try await app.walk(path, limit: 50, token: bob.accessToken).items
            #expect(items.count == 400, "\(path)")
            #expect(items.allSatisfy { $0["likedByMe"].bool != nil }, "\(path)")
            #expect(Set(items.filter { $0["likedByMe"].bool == true }.compactMap { $0["body"].string }) == likedByBob, "\(path)")
        }
        let asCarol = try await app.walk("/v1/posts", limit: 100, token: carol.accessToken).items
        #expect(asCarol.filter { $0["likedByMe"].bool == true }.compactMap { $0["body"].string } == ["many 4"])
        let anonymous = try await app.walk("/v1/posts", limit: 100).items
        #expect(anonymous.count == 400)
        #expect(anonymous.allSatisfy { $0["likedByMe"].bool == false })
    }

    @Test func likersPageNewestFirstEachExactlyOnce() async throws {
        let alice = try await app.signUp("alice")
        let post = try await app.createPost("popular", by: alice)
        var likers: [TestUser] = []
        for _ in 0..<5 {
            let user = try await app.signUp("liker")
            try await app.like(post, by: user)
            likers.append(user)
        }
        let (items, sizes) = try await app.walk("/v1/posts/\(post)/likes", limit: 2)
        #expect(sizes == [2, 2, 1])
        #expect(items.ids == likers.reversed().map(\.id))
        #expect(items.compactMap { $0["username"].string } == likers.reversed().map(\.username))
        #expect(items.allSatisfy { $0.keys == ["id", "username", "displayName", "likedAt"] })
        #expect(items.allSatisfy { isISO8601Seconds($0["likedAt"].string) })

        // An unliked user leaves the list.
        try await app.unlike(post, by: likers[2])
        let after = try await app.client.get("/v1/posts/\(post)/likes")
        #expect(after.json["items"].ids == [likers[4], likers[3], likers[1], likers[0]].map(\.id))
        #expect(after.json["hasMore"].bool == false)
        #expect(after.json["nextCursor"].isNull)
    }

    @Test func cursorsAreBoundToTheirListAndTamperEvident() async throws {
        let (alice, bob, carol) = try await app.signUp("alice", "bob", "carol")
        let first = try await app.createPost("first", by: alice)
        let second = try await app.createPost("second", by: alice)
        for user in [bob, carol] { try await app.like(first, by: user) }
        let page = try await app.client.get("/v1/posts/\(first)/likes?limit=1").requiring(200, "first page")
        let cursor = try #require(page.json["nextCursor"].string)
        let next = try await app.client.get("/v1/posts/\(first)/likes?limit=1&cursor=\(cursor)")
        #expect(next.status == 200 && next.json["items"].ids == [bob.id])

        let tampered = String(cursor.dropLast()) + (cursor.hasSuffix("A") ? "B" : "A")
        let timeline = try await app.client.get("/v1/posts?limit=1").requiring(200, "a timeline's first page")
        let timelineCursor = try #require(timeline.json["nextCursor"].string)
        for bad in ["/v1/posts/\(second)/likes?cursor=\(cursor)",  // another post's list
                    "/v1/posts/\(first)/likes?cursor=\(tampered)",
                    "/v1/posts/\(first)/likes?cursor=\(timelineCursor)",  // another kind of list
                    "/v1/posts/\(first)/likes?cursor=garbage",
                    "/v1/posts/\(first)/likes?cursor="] {
            let response = try await app.client.get(bad)
            #expect(response.status == 400, "\(bad)")
            #expect(response.json["code"].string == "invalid_cursor", "\(bad)")
        }
        for bad in ["limit=0", "limit=abc", "limit=-1"] {
            let response = try await app.client.get("/v1/posts/\(first)/likes?\(bad)")
            #expect(response.status == 400 && response.json["code"].string == "invalid_parameter", "\(bad)")
        }
    }

    @Test func unknownPostsMalformedIdsAndAnonymousCallers() async throws {
        let bob = try await app.signUp("bob")
        let missing = UUID().uuidString.lowercased()
        for method in ["PUT", "DELETE"] {
            let unknown = try await app.client.request(method, "/v1/posts/\(missing)/like", token: bob.accessToken)
            #expect(unknown.status == 404 && unknown.json["code"].string == "not_found", "\(method)")
            let malformed = try await app.client.request(method, "/v1/posts/not-a-uuid/like", token: bob.accessToken)
            #expect(malformed.status == 400 && malformed.json["code"].string == "invalid_parameter", "\(method)")
            let anonymous = try await app.client.request(method, "/v1/posts/\(missing)/like")
            #expect(anonymous.status == 401, "\(method)")
            #expect(anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        }
        let likers = try await app.client.get("/v1/posts/\(missing)/likes")
        #expect(likers.status == 404)
        let malformed = try await app.client.get("/v1/posts/\(missing.dropLast())x/likes")
        #expect(malformed.status == 400)
        #expect(try await app.count("select count(*) from likes") == 0)
    }
}
