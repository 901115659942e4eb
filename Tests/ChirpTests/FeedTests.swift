import Foundation
import Postgres
import TestSupport
import Testing

/// Timelines and the home feed: keyset pages that neither repeat nor skip, refresh with
/// `since`, bounded limits, tamper-evident cursors and ETags. Through the router: what is
/// tested is the routes and their cursors, not HTTP.
@Suite struct FeedTests {
    let app: TestService
    init() async throws { app = try await .started(over: .router) }

    @Test func aHundredPostsWithOneTimestampPageExactlyOnceEach() async throws {
        let author = try await app.signUp("same_time")
        try await app.database.execute("""
            insert into posts (author_id, body, created_at)
            select \(author.id)::uuid, 'tie ' || i, '2026-01-01 12:00:00+00' from generate_series(1, 100) i
            """)
        let ids = try await app.walk("/v1/users/\(author.username)/posts", limit: 7).items.ids
        #expect(ids.count == 100)
        #expect(Set(ids).count == 100)
        // Ties are broken by id, descending.
        #expect(ids == ids.sorted(by: >))
        let global = try await app.walk("/v1/posts", limit: 7).items.ids
        #expect(Set(global).isSuperset(of: ids))
        #expect(global.count == Set(global).count)
        // The home feed's rows are ordered by the service, in the database's order.
        let home = try await app.walk("/v1/feed", limit: 7, token: author.accessToken).items.ids
        #expect(home == ids)
    }

    @Test func pagingWhileNewPostsArriveNeitherRepeatsNorSkips() async throws {
        let author = try await app.signUp("busy")
        try await app.database.execute("""
            insert into posts (author_id, body, created_at)
            select \(author.id)::uuid, 'old ' || i, now() - i * interval '1 second' from generate_series(1, 30) i
            """)
        // Someone posts between every page.
        let seen = try await app.walk("/v1/users/\(author.username)/posts", limit: 4) { _ in
            try await app.createPost("new while paging", by: author)
        }.items.ids
        let old = try await app.database.execute(
            "select id from posts where author_id = \(author.id)::uuid and body like 'old %' order by created_at desc, id desc")
        let oldIDs = try old.rows.map { try $0.decode(UUID.self, at: 0).uuidString.lowercased() }
        #expect(seen.count == Set(seen).count)
        #expect(seen.filter(Set(oldIDs).contains) == oldIDs)
    }

    @Test func refreshWithSinceReturnsOnlyNewerPostsAndReportsAGap() async throws {
        let author = try await app.signUp("refresher")
        for index in 1...3 { try await app.createPost("first \(index)", by: author) }
        let first = try await app.client.get("/v1/feed?limit=5", token: author.accessToken).requiring(200, "the feed")
        let head = try #require(first.json["headCursor"].string)
        #expect(first.json["items"].array.count == 3)

        let nothingNew = try await app.client.get("/v1/feed?since=\(head)", token: author.accessToken)
        #expect(nothingNew.status == 200)
        #expect(nothingNew.json["items"].array.isEmpty)
        #expect(nothingNew.json["gap"].bool == false)
        #expect(nothingNew.json["headCursor"].string == head)

        for index in 1...5 { try await app.createPost("later \(index)", by: author) }
        let newer = try await app.client.get("/v1/feed?since=\(head)&limit=3", token: author.accessToken)
        #expect(newer.json["items"].array.map { $0["body"].string } == ["later 5", "later 4", "later 3"])
        #expect(newer.json["gap"].bool == true)
        #expect(newer.json["hasMore"].bool == true)
        // The gap fills downward and stops at the old head.
        let filler = try #require(newer.json["nextCursor"].string)
        let rest = try await app.client.get("/v1/feed?cursor=\(filler)&limit=3", token: author.accessToken)
        #expect(rest.json["items"].array.map { $0["body"].string } == ["later 2", "later 1"])
        #expect(rest.json["hasMore"].bool == false)
    }

    @Test func theHomeFeedHoldsOwnAndFollowedPostsOnly() async throws {
        let (reader, followed, stranger) = try await app.signUp("reader", "followed", "stranger")
        for (user, body) in [(reader, "mine"), (followed, "followed"), (stranger, "stranger")] {
            try await app.createPost(body, by: user)
        }
        try await app.database.execute(
            "insert into follows (follower_id, followee_id) values (\(reader.id)::uuid, \(followed.id)::uuid)")
        let feed = try await app.client.get("/v1/feed", token: reader.accessToken)
        #expect(Set(feed.json["items"].array.compactMap { $0["body"].string }) == ["mine", "followed"])
        let anonymous = try await app.client.get("/v1/feed")
        #expect(anonymous.status == 401)
        #expect(anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
    }

    @Test func forgedGarbledAndForeignCursorsAre400() async throws {
        let user = try await app.signUp("cursor")
        for index in 1...3 { try await app.createPost("c\(index)", by: user) }
        let page = try await app.client.get("/v1/users/\(user.username)/posts?limit=1").requiring(200, "first page")
        let cursor = try #require(page.json["nextCursor"].string)
        var tampered = Array(cursor.utf8)
        tampered[3] = tampered[3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let bad = [String(decoding: tampered, as: UTF8.self), "garbage", "", "AAAA", String(repeating: "A", count: 400), cursor + "A"]
        for value in bad {
            let response = try await app.client.get("/v1/users/\(user.username)/posts?cursor=\(value)")
            #expect(response.status == 400, "\(value)")
            #expect(response.json["code"].string == "invalid_cursor")
        }
        // A cursor from one list means nothing on another.
        let foreign = try await app.client.get("/v1/posts?cursor=\(cursor)")
        #expect(foreign.json["code"].string == "invalid_cursor")
        let both = try await app.client.get("/v1/posts?cursor=\(cursor)&since=\(cursor)")
        #expect(both.status == 400)
    }

    @Test func limitsAreBoundedAndValidated() async throws {
        let user = try await app.signUp("limits")
        try await app.insertPosts(60, by: user, prefix: "x")
        let clamped = try await app.client.get("/v1/users/\(user.username)/posts?limit=500")
        #expect(clamped.json["items"].array.count == 50)
        // Any positive integer is a size, however many digits: past Int's range it clamps too.
        let huge = try await app.client.get("/v1/users/\(user.username)/posts?limit=99999999999999999999999")
        #expect(huge.status == 200 && huge.json["items"].array.count == 50)
        let standard = try await app.client.get("/v1/users/\(user.username)/posts")
        #expect(standard.json["items"].array.count == 20)
        for bad in ["0", "000", "-1", "+1", "abc", "1.5", "1e3", ""] {
            let response = try await app.client.get("/v1/posts?limit=\(bad)")
            #expect(response.status == 400, "\(bad)")
            #expect(response.json["code"].string == "invalid_parameter")
        }
        let unknown = try await app.client.get("/v1/users/nobody_here_\(Int.random(in: 0..<99_999))/posts")
        #expect(unknown.status == 404)
    }

    @Test func anUnchangedFirstPageAnswers304() async throws {
        let user = try await app.signUp("etag")
        try await app.createPost("hello", by: user)
        let first = try await app.client.get("/v1/feed", token: user.accessToken).requiring(200, "the feed")
        let tag = try #require(first.header("ETag"))
        #expect(tag.hasPrefix("W/\""))
        let again = try await app.client.get("/v1/feed", token: user.accessToken, headers: ["If-None-Match": tag])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        try await app.createPost("news", by: user)
        let changed = try await app.client.get("/v1/feed", token: user.accessToken, headers: ["If-None-Match": tag])
        #expect(changed.status == 200)
        #expect(changed.header("ETag") != tag)
    }
}
