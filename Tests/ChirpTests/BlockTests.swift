import Foundation
import Postgres
import Testing

/// Blocks work both ways and the database enforces them: neither user sees the other's posts,
/// comments or profile, and neither can follow, like, comment on or reply to the other (403
/// `blocked`). Mutes hide the muted user's posts from the muter's home feed, global timeline
/// and explore only, and nobody else sees them.
@Suite struct BlockTests {
    let app: TestService
    init() async throws { app = try await .started(over: .router) }

    func block(_ user: TestUser, by blocker: TestUser) async throws {
        let answer = try await app.client.put("/v1/users/\(user.username)/block", token: blocker.accessToken)
            .requiring(200, "block by \(blocker.username)")
        #expect(answer.json["username"].string == user.username && answer.json["blocked"].bool == true)
    }

    func postIDs(_ path: String, as user: TestUser) async throws -> [String] {
        try await app.client.get(path, token: user.accessToken).requiring(200, path).json["items"].ids
    }

    @Test func aBlockHidesEachFromTheOtherAndRefusesTheirActions() async throws {
        let (alice, bob, carol) = try await app.signUp("blka", "blkb", "blkc")
        let alicesPost = try await app.createPost("alice writes zygomorphic", by: alice)
        let bobsPost = try await app.createPost("bob writes zygomorphic", by: bob)
        let carolsPost = try await app.createPost("carol writes", by: carol)
        let alicesComment = try await app.createComment(on: carolsPost, "alice on carol", by: alice)
        let bobsComment = try await app.createComment(on: carolsPost, "bob on carol", by: bob)
        try await app.follow(bob, by: alice)
        try await app.follow(alice, by: bob)
        try await app.like(alicesPost, by: bob)

        try await block(bob, by: alice)

        for (viewer, other, hidden, visible) in [(alice, bob, bobsPost, alicesPost), (bob, alice, alicesPost, bobsPost)] {
            #expect(try await app.client.get("/v1/users/\(other.username)", token: viewer.accessToken).status == 404)
            #expect(try await app.client.get("/v1/users/\(other.username)/posts", token: viewer.accessToken).status == 404)
            #expect(try await app.client.get("/v1/posts/\(hidden)", token: viewer.accessToken).status == 404)
            #expect(try await app.client.get("/v1/posts/\(visible)", token: viewer.accessToken).status == 200)
            let everyone = try await postIDs("/v1/posts", as: viewer)
            #expect(!everyone.contains(hidden) && everyone.contains(visible) && everyone.contains(carolsPost))
            #expect(try await postIDs("/v1/feed", as: viewer) == [visible])
            #expect(try await postIDs("/v1/search/posts?q=zygomorphic", as: viewer) == [visible])
            let users = try await app.client.get("/v1/search/users?q=blk", token: viewer.accessToken).json["items"].array
            #expect(!users.contains { $0["username"].string == other.username })
            #expect(users.contains { $0["username"].string == carol.username })
        }
        let thread = try await postIDs("/v1/posts/\(carolsPost)/comments", as: alice)
        #expect(thread == [alicesComment])
        #expect(try await app.client.get("/v1/comments/\(bobsComment)", token: alice.accessToken).status == 404)
        // Everyone else, and anonymous callers, see both.
        #expect(try await postIDs("/v1/posts/\(carolsPost)/comments", as: carol) == [alicesComment, bobsComment])
        #expect(try await app.client.get("/v1/users/\(alice.username)").status == 200)

        // Actions across the block are refused, in both directions, and change nothing.
        for (actor, post, parent, other) in [(bob, alicesPost, alicesComment, alice), (alice, bobsPost, bobsComment, bob)] {
            let like = try await app.client.put("/v1/posts/\(post)/like", token: actor.accessToken)
            #expect(like.status == 403 && like.json["code"].string == "blocked", "\(like.text)")
            let comment = try await app.client.post("/v1/posts/\(post)/comments", json: ["body": "hi"], token: actor.accessToken)
            #expect(comment.status == 403 && comment.json["code"].string == "blocked", "\(comment.text)")
            let reply = try await app.client.post(
                "/v1/posts/\(carolsPost)/comments", json: ["body": "hi", "parentId": parent], token: actor.accessToken)
            #expect(reply.status == 403 && reply.json["code"].string == "blocked", "\(reply.text)")
            let follow = try await app.client.put("/v1/users/\(other.username)/follow", token: actor.accessToken)
            #expect(follow.status == 403 && follow.json["code"].string == "blocked", "\(follow.text)")
        }
        #expect(try await app.count("select count(*) from comments where body = 'hi'") == 0)
        // The block ended both follows, and what bob's follow and like had told alice.
        #expect(try await app.count("select count(*) from follows where follower_id in (\(alice.id)::uuid, \(bob.id)::uuid)") == 0)
        #expect(try await app.client.get("/v1/me", token: alice.accessToken).json["followerCount"].int == 0)
        let notes = try await app.client.get("/v1/notifications", token: alice.accessToken).json["items"].array
        #expect(!notes.contains { $0["actors"].array.contains { $0["username"].string == bob.username } })
        // An unknown post is still a 404, not a block.
        #expect(try await app.client.post("/v1/posts/\(UUID())/comments", json: ["body": "x"], token: bob.accessToken).status == 404)
    }

    @Test func blockingIsIdempotentListedAndLifted() async throws {
        let (alice, bob, carol) = try await app.signUp("blkd", "blke", "blkf")
        let bobsPost = try await app.createPost("bob again", by: bob)
        try await block(bob, by: alice)
        try await block(bob, by: alice)
        try await block(carol, by: alice)
        // Blocking someone who blocked you works too.
        try await block(alice, by: bob)
        #expect(try await app.count("select count(*) from blocks where blocker_id = \(alice.id)::uuid") == 2)

        let list = try await app.walk("/v1/me/blocks", limit: 1, token: alice.accessToken)
        #expect(list.items.map { $0["username"].string } == [carol.username, bob.username])
        #expect(list.items.allSatisfy { $0["followerCount"].int != nil })
        #expect(try await app.client.get("/v1/me/blocks", token: carol.accessToken).json["items"].array.isEmpty)
        #expect(try await app.client.get("/v1/me/blocks").status == 401)

        let lifted = try await app.client.delete("/v1/users/\(bob.username)/block", token: alice.accessToken)
        #expect(lifted.status == 200 && lifted.json["blocked"].bool == false)
        #expect(try await app.client.delete("/v1/users/\(bob.username)/block", token: alice.accessToken).status == 200)
        // Bob's own block still stands between them.
        #expect(try await app.client.get("/v1/posts/\(bobsPost)", token: alice.accessToken).status == 404)
        try await app.client.delete("/v1/users/\(alice.username)/block", token: bob.accessToken).requiring(200, "unblock")
        #expect(try await app.client.get("/v1/posts/\(bobsPost)", token: alice.accessToken).status == 200)
        // Follows do not come back by themselves.
        try await app.follow(bob, by: alice)

        let yourself = try await app.client.put("/v1/users/\(alice.username)/block", token: alice.accessToken)
        #expect(yourself.status == 422 && yourself.json["code"].string == "validation_failed")
        #expect(try await app.client.put("/v1/users/nobody_at_all_here/block", token: alice.accessToken).status == 404)
        #expect(try await app.client.put("/v1/users/\(bob.username)/block").status == 401)
        #expect(try await app.client.put("/v1/users/x/block", token: alice.accessToken).status == 404)
    }

    @Test func aMuteHidesPostsFromTheMutersFeedsOnlyAndSilently() async throws {
        let (alice, bob, carol) = try await app.signUp("mutea", "muteb", "mutec")
        try await app.follow(bob, by: alice)
        let bobsPost = try await app.createPost("bob, soon muted", by: bob)
        let alicesPost = try await app.createPost("alice's own", by: alice)
        try await app.like(bobsPost, by: carol)
        try await app.database.execute("select app.explore_snapshot(0, 1000)")

        let muted = try await app.client.put("/v1/users/\(bob.username)/mute", token: alice.accessToken)
        #expect(muted.status == 200 && muted.json["muted"].bool == true && muted.json["username"].string == bob.username)
        #expect(try await postIDs("/v1/feed", as: alice) == [alicesPost])
        #expect(!(try await postIDs("/v1/posts", as: alice)).contains(bobsPost))
        #expect(!(try await postIDs("/v1/explore", as: alice)).contains(bobsPost))
        // Elsewhere the muted user is as before, to the muter too; and to everyone else.
        #expect(try await app.client.get("/v1/posts/\(bobsPost)", token: alice.accessToken).status == 200)
        #expect(try await postIDs("/v1/users/\(bob.username)/posts", as: alice) == [bobsPost])
        #expect(try await app.client.get("/v1/users/\(bob.username)", token: alice.accessToken).json["profile"]["followedByMe"].bool == true)
        #expect(try await postIDs("/v1/posts", as: carol).contains(bobsPost))
        #expect(try await postIDs("/v1/explore", as: carol).contains(bobsPost))
        #expect(try await app.client.get("/v1/explore").json["items"].ids.contains(bobsPost))
        // Bob is not told, and can still act on alice's posts.
        #expect(try await app.client.get("/v1/me/mutes", token: bob.accessToken).json["items"].array.isEmpty)
        try await app.like(alicesPost, by: bob)

        #expect(try await app.client.get("/v1/me/mutes", token: alice.accessToken).json["items"][0]["username"].string == bob.username)
        try await app.client.delete("/v1/users/\(bob.username)/mute", token: alice.accessToken).requiring(200, "unmute")
        #expect(try await postIDs("/v1/feed", as: alice) == [alicesPost, bobsPost])
        #expect(try await app.client.put("/v1/users/\(alice.username)/mute", token: alice.accessToken).status == 422)
    }
}
