import Foundation
import Postgres
import Testing

/// Notifications: written in the transaction of their cause, read by their recipient only,
/// likes of one post grouped while unread, and gone with their cause (an unlike, an unfollow,
/// a deleted comment, post or account).
@Suite struct NotificationTests {
    let app: TestService
    init() async throws { app = try await .started(over: .router) }

    func notifications(of user: TestUser, query: String = "") async throws -> TestClient.Response {
        try await app.client.get("/v1/notifications\(query)", token: user.accessToken).requiring(200, "notifications of \(user.username)")
    }

    func unreadCount(of user: TestUser) async throws -> JSON {
        try await app.client.get("/v1/notifications/unread-count", token: user.accessToken).requiring(200, "unread count").json
    }

    func markRead(_ user: TestUser, upTo cursor: String? = nil) async throws -> TestClient.Response {
        try await app.client.post("/v1/notifications/read", json: cursor.map { ["upTo": $0] } ?? [:], token: user.accessToken)
    }

    @Test func eachCauseNotifiesItsRecipientOnce() async throws {
        let (alice, bob, carol) = try await app.signUp("nota", "notb", "notc")
        try await app.follow(alice, by: bob)
        let post = try await app.createPost("hello from alice, cc @\(bob.username)", by: alice)
        try await app.like(post, by: bob)
        let comment = try await app.createComment(on: post, "nice one", by: bob)
        let reply = try await app.createComment(on: post, "agreed, @\(alice.username)", parentId: comment, by: carol)
        // Her own actions tell nobody: a like and a comment of her own post.
        try await app.like(post, by: alice)
        _ = try await app.createComment(on: post, "thanks all", by: alice)

        let items = try await notifications(of: alice).json["items"].array
        // carol's reply mentions alice, who is told once: as the post's author (comment).
        #expect(items.map { $0["kind"].string } == ["comment", "comment", "like", "follow"])
        #expect(items[0]["actors"].array.map { $0["username"].string } == [carol.username])
        #expect(items[0]["comment"]["id"].string == reply && items[0]["post"]["id"].string == post)
        #expect(items[1]["comment"]["id"].string == comment)
        #expect(items[2]["post"]["id"].string == post && items[2]["comment"].isNull && items[2]["actorCount"].int == 1)
        #expect(items[3]["actors"][0]["username"].string == bob.username && items[3]["post"].isNull)
        #expect(items[3]["actors"][0]["followedByMe"].bool == false)
        for item in items {
            #expect(item["read"].bool == false)
            #expect(isISO8601Seconds(item["createdAt"].string))
            #expect(item["id"].string != nil)
        }

        // bob: mentioned by alice's post, replied to by carol.
        let bobs = try await notifications(of: bob).json["items"].array
        #expect(bobs.map { $0["kind"].string } == ["reply", "mention"])
        #expect(bobs[0]["comment"]["id"].string == reply && bobs[0]["comment"]["parentId"].string == comment)
        #expect(bobs[1]["post"]["id"].string == post && bobs[1]["comment"].isNull)
        #expect(bobs[1]["post"]["likedByMe"].bool == true)
        #expect(try await notifications(of: carol).json["items"].array.isEmpty)
        #expect(try await unreadCount(of: alice)["count"].int == 4)
    }

    @Test func mentionsNameRealAccountsOnceAndEditsOnlyAddNewOnes() async throws {
        let (alice, bob, carol) = try await app.signUp("menta", "mentb", "mentc")
        let body = "@\(bob.username) and @\(bob.username.uppercased()), mail me@\(carol.username).example, @nobody_here_at_all, @\(alice.username)"
        let post = try await app.createPost(body, by: alice)
        #expect(try await notifications(of: bob).json["items"].array.count == 1)
        #expect(try await notifications(of: carol).json["items"].array.isEmpty)
        #expect(try await notifications(of: alice).json["items"].array.isEmpty)

        try await app.client.patch("/v1/posts/\(post)", json: ["body": "now @\(carol.username) and @\(bob.username)"], token: alice.accessToken)
            .requiring(200, "edit")
        #expect(try await notifications(of: bob).json["items"].array.count == 1)
        let carols = try await notifications(of: carol).json["items"].array
        #expect(carols.map { $0["kind"].string } == ["mention"])
        #expect(carols.first?["post"]["body"].string == "now @\(carol.username) and @\(bob.username)")

        let comment = try await app.createComment(on: post, "hey @\(carol.username)", by: bob)
        try await app.client.patch("/v1/comments/\(comment)", json: ["body": "hey @\(carol.username)!"], token: bob.accessToken)
            .requiring(200, "comment edit")
        let mentions = try await notifications(of: carol).json["items"].array
        #expect(mentions.map { $0["kind"].string } == ["mention", "mention"])
        #expect(mentions[0]["comment"]["id"].string == comment)
    }

    @Test func likesOfOnePostGroupWhileUnreadAndALikeAfterReadingStartsANewGroup() async throws {
        let alice = try await app.signUp("groupa")
        let likers = try await app.signUp("groupl", count: 4)
        let post = try await app.createPost("like me", by: alice)
        for liker in likers { try await app.like(post, by: liker) }

        var page = try await notifications(of: alice)
        var items = page.json["items"].array
        #expect(items.count == 1)
        #expect(items[0]["kind"].string == "like" && items[0]["actorCount"].int == 4)
        // The newest three, newest first.
        #expect(items[0]["actors"].array.map { $0["username"].string } == likers.reversed().prefix(3).map(\.username))
        #expect(try await unreadCount(of: alice)["count"].int == 1)

        // An unlike takes its actor out; liking again puts them back on top.
        try await app.unlike(post, by: likers[3])
        items = try await notifications(of: alice).json["items"].array
        #expect(items[0]["actorCount"].int == 3 && items[0]["actors"][0]["username"].string == likers[2].username)
        try await app.like(post, by: likers[3])
        items = try await notifications(of: alice).json["items"].array
        #expect(items[0]["actorCount"].int == 4 && items[0]["actors"][0]["username"].string == likers[3].username)

        // Read up to the head: a like after that starts a new group.
        page = try await notifications(of: alice)
        let head = try #require(page.json["headCursor"].string)
        #expect(try await markRead(alice, upTo: head).status == 204)
        #expect(try await unreadCount(of: alice)["count"].int == 0)
        try await app.unlike(post, by: likers[0])
        try await app.like(post, by: likers[0])
        items = try await notifications(of: alice).json["items"].array
        #expect(items.map { $0["actorCount"].int } == [1, 3])
        #expect(items.map { $0["read"].bool } == [false, true])
        #expect(try await unreadCount(of: alice)["count"].int == 1)

        // Unliking empties the new group, which goes; the read one stays.
        try await app.unlike(post, by: likers[0])
        items = try await notifications(of: alice).json["items"].array
        #expect(items.map { $0["actorCount"].int } == [3])
        #expect(try await app.count("select count(*) from notifications where post_id = \(post)::uuid") == 1)
    }

    @Test func concurrentLikesJoinOneGroupAndItsCountMatchesTheLikes() async throws {
        let alice = try await app.signUp("concna")
        let likers = try await app.signUp("concnl", count: 12)
        let post = try await app.createPost("everyone at once", by: alice)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for liker in likers { group.addTask { try await app.like(post, by: liker) } }
            try await group.waitForAll()
        }
        let items = try await notifications(of: alice).json["items"].array
        #expect(items.count == 1 && items.first?["actorCount"].int == 12)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for liker in likers.prefix(7) { group.addTask { try await app.unlike(post, by: liker) } }
            try await group.waitForAll()
        }
        #expect(try await notifications(of: alice).json["items"][0]["actorCount"].int == 5)
        #expect(try await app.count("""
            select count(*) from notifications n
            where n.actor_count <> (select count(*) from notification_actors a where a.notification_id = n.id)
            """) == 0)
    }

    @Test func markingReadMovesOnlyUpAndEverythingMeansWhatExistsNow() async throws {
        let (alice, bob) = try await app.signUp("marka", "markb")
        for index in 0..<5 { _ = try await app.createPost("post \(index) for @\(alice.username)", by: bob) }
        let first = try #require(try await notifications(of: alice, query: "?limit=2").json["nextCursor"].string)
        let secondPage = try await notifications(of: alice, query: "?limit=2&cursor=\(first)")
        #expect(secondPage.json["headCursor"].isNull)
        let second = try #require(secondPage.json["nextCursor"].string)

        // Up to the first page's last entry: it and the three older ones are read.
        #expect(try await markRead(alice, upTo: first).status == 204)
        #expect(try await unreadCount(of: alice)["count"].int == 1)
        #expect(try await notifications(of: alice).json["items"].array.map { $0["read"].bool } == [false, true, true, true, true])
        // An older cursor does not unread what is read.
        #expect(try await markRead(alice, upTo: second).status == 204)
        #expect(try await unreadCount(of: alice)["count"].int == 1)

        // No body at all, or no upTo: everything so far; what comes later is unread.
        #expect(try await app.client.post("/v1/notifications/read", raw: "", token: alice.accessToken, contentType: nil).status == 204)
        #expect(try await unreadCount(of: alice)["count"].int == 0)
        _ = try await app.createPost("one more for @\(alice.username)", by: bob)
        #expect(try await unreadCount(of: alice)["count"].int == 1)
        #expect(try await markRead(alice).status == 204)
        #expect(try await unreadCount(of: alice)["count"].int == 0)
        // With nothing to read, marking is still a 204.
        #expect(try await markRead(bob).status == 204)
    }

    @Test func theListPagesWithoutRepeatsAndOnlyItsRecipientReadsIt() async throws {
        let (alice, bob) = try await app.signUp("pagea", "pageb")
        let followers = try await app.signUp("pagef", count: 7)
        for follower in followers { try await app.follow(alice, by: follower) }
        let (items, sizes) = try await app.walk("/v1/notifications", limit: 3, token: alice.accessToken)
        #expect(sizes == [3, 3, 1])
        #expect(Set(items.ids).count == 7)
        #expect(items.map { $0["actors"][0]["username"].string } == followers.reversed().map(\.username))

        #expect(try await notifications(of: bob).json["items"].array.isEmpty)
        #expect(try await app.client.get("/v1/notifications").status == 401)
        #expect(try await app.client.get("/v1/notifications/unread-count").status == 401)
        #expect(try await app.client.post("/v1/notifications/read", json: [:]).status == 401)

        // Alice's cursors open only her list, and only as list positions.
        let alicesCursor = try #require(try await notifications(of: alice, query: "?limit=2").json["nextCursor"].string)
        let foreign = try await app.client.get("/v1/notifications?cursor=\(alicesCursor)", token: bob.accessToken)
        #expect(foreign.status == 400 && foreign.json["code"].string == "invalid_cursor")
        let marked = try await markRead(bob, upTo: alicesCursor)
        #expect(marked.status == 400 && marked.json["code"].string == "invalid_cursor")
        for body in ["{\"upTo\": 42}", "{\"upTo\": \"x\", \"all\": true}"] {
            let refused = try await app.client.post("/v1/notifications/read", raw: body, token: alice.accessToken)
            #expect(refused.status == 422, "\(body)")
        }
        #expect(try await app.client.post("/v1/notifications/read", raw: "{", token: alice.accessToken).status == 400)
        #expect(try await app.client.post("/v1/notifications/read", raw: "{}", token: alice.accessToken, contentType: "text/plain").status == 415)
        #expect(try await markRead(alice, upTo: "garbled").json["code"].string == "invalid_cursor")
        #expect(try await unreadCount(of: alice)["count"].int == 7)
        #expect(try await app.client.get("/v1/notifications?limit=0", token: alice.accessToken).status == 400)
    }

    @Test func theUnreadCountStopsAtItsCap() async throws {
        let (alice, bob) = try await app.signUp("capa", "capb")
        try await app.database.execute("""
            insert into posts (author_id, body) select \(bob.id)::uuid, 'hi @' || \(alice.username)::text || ' ' || i
            from generate_series(1, 105) i
            """)
        let capped = try await unreadCount(of: alice)
        #expect(capped["count"].int == 100 && capped["countIsCapped"].bool == true)
        #expect(try await markRead(alice).status == 204)
        let none = try await unreadCount(of: alice)
        #expect(none["count"].int == 0 && !none["countIsCapped"].exists)
    }

    @Test func notificationsGoWithTheirCause() async throws {
        let (alice, bob, carol) = try await app.signUp("causea", "causeb", "causec")
        let post = try await app.createPost("alice's", by: alice)
        let other = try await app.createPost("alice's other", by: alice)
        try await app.follow(alice, by: bob)
        try await app.like(post, by: bob)
        try await app.like(post, by: carol)
        let comment = try await app.createComment(on: post, "bob says @\(carol.username)", by: bob)
        _ = try await app.createComment(on: other, "carol on the other", by: carol)
        _ = try await app.createComment(on: post, "carol replies", parentId: comment, by: carol)
        #expect(try await notifications(of: alice).json["items"].array.map { $0["kind"].string } == ["comment", "comment", "comment", "like", "follow"])

        // An unfollow takes its notification with it; a deleted comment takes its replies' too.
        try await app.client.delete("/v1/users/\(alice.username)/follow", token: bob.accessToken).requiring(200, "unfollow")
        try await app.client.delete("/v1/comments/\(comment)", token: bob.accessToken).requiring(204, "comment deletion")
        #expect(try await notifications(of: alice).json["items"].array.map { $0["kind"].string } == ["comment", "like"])
        #expect(try await notifications(of: carol).json["items"].array.isEmpty)
        #expect(try await notifications(of: bob).json["items"].array.isEmpty)

        // A deleted account's actions leave everyone's notifications; the group keeps carol.
        try await app.follow(alice, by: bob)
        #expect(try await app.deleteAccount(of: bob, password: bob.password).status == 204)
        let items = try await notifications(of: alice).json["items"].array
        #expect(items.map { $0["kind"].string } == ["comment", "like"])
        #expect(items[1]["actorCount"].int == 1 && items[1]["actors"].array.map { $0["username"].string } == [carol.username])
        #expect(try await app.count("select count(*) from notification_actors where actor_id = \(bob.id)::uuid") == 0)

        // A deleted post takes its notifications; a deleted recipient takes all of theirs.
        try await app.client.delete("/v1/posts/\(post)", token: alice.accessToken).requiring(204, "post deletion")
        #expect(try await notifications(of: alice).json["items"].array.map { $0["kind"].string } == ["comment"])
        #expect(try await app.deleteAccount(of: alice, password: alice.password).status == 204)
        #expect(try await app.count("select count(*) from notifications where recipient_id = \(alice.id)::uuid") == 0)
        #expect(try await app.count("select count(*) from notification_actors where recipient_id = \(alice.id)::uuid") == 0)
    }
}
