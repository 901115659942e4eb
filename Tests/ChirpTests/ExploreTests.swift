import Foundation
import Postgres
import TestSupport
import Testing

/// Explore ranks by likes and pages over a snapshot, stable while likes change. Through the
/// router: what is tested is the ranking and its cursors, not HTTP.
@Suite struct ExploreTests {
    let app: TestService
    init() async throws { app = try await .started(over: .router) }

    /// 30 posts liked 0…29 times (by fixture users, as superuser).
    func seedRankedPosts() async throws -> TestUser {
        let author = try await app.signUp("ranked")
        // The service's background refresher may have ranked a snapshot before these posts
        // existed (explore is allowed to be 30 s stale): the last statement makes requests rank
        // afresh.
        try await app.database.execute(
            PostgresQuery("insert into users (username) select 'liker_' || i from generate_series(1, 30) i"),
            PostgresQuery("""
                insert into posts (author_id, body, created_at)
                select \(author.id)::uuid, 'ranked ' || i, now() - i * interval '1 minute' from generate_series(0, 29) i
                """),
            PostgresQuery("""
                insert into likes (user_id, post_id)
                select u.id, p.id from posts p
                join users u on u.username like 'liker_%' and substring(u.username from 7)::int <= substring(p.body from 8)::int
                """),
            PostgresQuery("delete from explore_snapshots"))
        return author
    }

    @Test func postsComeByLikeCountDescending() async throws {
        _ = try await seedRankedPosts()
        let page = try await app.client.get("/v1/explore?limit=5")
        #expect(page.status == 200)
        #expect(page.json["items"].array.compactMap { $0["likeCount"].int } == [29, 28, 27, 26, 25])
        #expect(page.json["hasMore"].bool == true)
    }

    @Test func pagingIsStableWhileLikesChange() async throws {
        let author = try await seedRankedPosts()
        let churner = try await app.signUp("churner")
        let seen = try await app.walk("/v1/explore", limit: 4) { items in
            // Between pages, likes move: the last posts of this page get liked, which would
            // push them onto the next page of a live ranking.
            for id in items.suffix(2).ids { try await app.like(id, by: churner) }
            try await app.database.execute("""
                update posts set like_count = like_count + 100 where id in (
                    select id from posts where author_id = \(author.id)::uuid order by random() limit 3)
                """)
        }.items.ids
        #expect(seen.count == 30)
        #expect(Set(seen).count == seen.count)
    }

    @Test func anExpiredSnapshotCursorIsA400() async throws {
        _ = try await seedRankedPosts()
        let page = try await app.client.get("/v1/explore?limit=2").requiring(200, "first page")
        let cursor = try #require(page.json["nextCursor"].string)
        try await app.database.execute("delete from explore_snapshots")
        let expired = try await app.client.get("/v1/explore?cursor=\(cursor)")
        #expect(expired.status == 400)
        #expect(expired.json["code"].string == "invalid_cursor")
        let forged = try await app.client.get("/v1/explore?cursor=\(cursor.dropLast(2))xx")
        #expect(forged.status == 400)
        let restart = try await app.client.get("/v1/explore?limit=2")
        #expect(restart.status == 200)
    }
}
