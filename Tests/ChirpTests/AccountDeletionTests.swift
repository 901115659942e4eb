import Foundation
import Postgres
import Testing

/// `DELETE /v1/me`: with the password, the account and every row of it go, every counter it
/// touched on other people's rows stays exact, and its sessions end; without it, nothing goes.
@Suite struct AccountDeletionTests {
    let app: TestService
    init() async throws { app = try await .started(over: .router) }

    /// Counters that differ from their rows, across the whole database.
    func inexactCounters() async throws -> Int {
        try await app.count("""
            select (select count(*) from posts p where p.like_count <> (select count(*) from likes l where l.post_id = p.id))
                 + (select count(*) from posts p where p.comment_count <> (select count(*) from comments c where c.post_id = p.id))
                 + (select count(*) from comments c where c.reply_count <> (select count(*) from comments r where r.parent_id = c.id))
                 + (select count(*) from users u where u.follower_count <> (select count(*) from follows f where f.followee_id = u.id))
                 + (select count(*) from users u where u.following_count <> (select count(*) from follows f where f.follower_id = u.id))
                 + (select count(*) from users u where u.post_count <> (select count(*) from posts p where p.author_id = u.id))
            """)
    }

    @Test func theAccountAndItsRowsGoAndEveryCounterStaysExact() async throws {
        let (alice, bob, carol) = try await app.signUp("gonea", "goneb", "gonec")
        let alicesPost = try await app.createPost("alice was here", by: alice)
        let bobsPost = try await app.createPost("bob's", by: bob)
        try await app.like(bobsPost, by: alice)
        try await app.like(alicesPost, by: bob)
        let alicesComment = try await app.createComment(on: bobsPost, "alice on bob", by: alice)
        _ = try await app.createComment(on: bobsPost, "carol replies to alice", parentId: alicesComment, by: carol)
        _ = try await app.createComment(on: bobsPost, "carol on bob", by: carol)
        _ = try await app.createComment(on: alicesPost, "bob on alice", by: bob)
        try await app.follow(bob, by: alice)
        try await app.follow(alice, by: carol)
        try await app.follow(bob, by: carol)

        let wrong = try await app.deleteAccount(of: alice, password: "not the password")
        #expect(wrong.status == 403 && wrong.json["code"].string == "wrong_password")
        #expect(try await app.client.get("/v1/users/\(alice.username)").status == 200)

        let deleted = try await app.deleteAccount(of: alice, password: alice.password)
        #expect(deleted.status == 204, "\(deleted.text)")

        #expect(try await app.client.get("/v1/users/\(alice.username)").status == 404)
        #expect(try await app.client.get("/v1/posts/\(alicesPost)").status == 404)
        #expect(try await app.client.get("/v1/me", token: alice.accessToken).status == 401)
        let login = try await app.client.post("/v1/auth/login", json: ["username": alice.username, "password": alice.password])
        #expect(login.status == 401)
        #expect(try await app.client.post("/v1/auth/refresh", json: ["refreshToken": alice.refreshToken]).status == 401)

        let post = try await app.client.get("/v1/posts/\(bobsPost)")
        #expect(post.json["likeCount"].int == 0)
        #expect(post.json["commentCount"].int == 1)  // carol's; her reply went with alice's comment
        let bobNow = try await app.client.get("/v1/users/\(bob.username)")
        #expect(bobNow.json["profile"]["followerCount"].int == 1)
        let carolNow = try await app.client.get("/v1/users/\(carol.username)")
        #expect(carolNow.json["profile"]["followingCount"].int == 1)
        #expect(try await inexactCounters() == 0)
        for (table, column) in [("posts", "author_id"), ("likes", "user_id"), ("comments", "author_id"), ("follows", "follower_id"),
                                ("follows", "followee_id"), ("refresh_tokens", "user_id"), ("credentials", "user_id"),
                                ("home_timeline", "user_id")] {
            let rows = try await app.count("select count(*) from \(unescaped: table) where \(unescaped: column) = \(alice.id)::uuid")
            #expect(rows == 0, "\(table).\(column)")
        }
        #expect(try await app.count("select count(*) from home_timeline where author_id = \(alice.id)::uuid") == 0)

        // The name is free again.
        let again = try await app.client.post("/v1/auth/signup", json: ["username": alice.username, "password": "another good password"])
        #expect(again.status == 201)
    }

    @Test func anEndedSessionCannotDeleteTheAccount() async throws {
        let alice = try await app.signUp("goned")
        #expect(try await app.client.post("/v1/auth/logout-all", json: [:], token: alice.accessToken).status == 204)
        #expect(try await app.deleteAccount(of: alice, password: alice.password).status == 401)
        #expect(try await app.client.get("/v1/users/\(alice.username)").status == 200)
        #expect(try await app.client.request("DELETE", "/v1/me", body: Data("{}".utf8), token: nil).status == 401)
    }
}
