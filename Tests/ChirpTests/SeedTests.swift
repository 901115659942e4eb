import Chirp
import Foundation
import Postgres
import Testing

@Suite struct SeedTests {
    let sizes = SeedSizes(seed: 7, users: 40, posts: 600, likes: 3_000, follows: 300, comments: 400)
    let hasher = PasswordHasher(parameters: .owaspMinimum)

    /// A digest of everything seeded, ids included.
    func fingerprint(_ database: TestDatabase) throws -> String {
        try database.scalar("""
            select md5(concat_ws('|',
                (select string_agg(id || username || display_name || follower_count || following_count || post_count, ',' order by id) from users),
                (select string_agg(id || author_id::text || body || created_at || like_count || comment_count, ',' order by id) from posts),
                (select string_agg(user_id || post_id::text || created_at, ',' order by user_id, post_id) from likes),
                (select string_agg(follower_id || followee_id::text, ',' order by follower_id, followee_id) from follows),
                (select string_agg(id || post_id::text || coalesce(parent_id::text, '-') || reply_count, ',' order by id) from comments)))
            """)
    }

    @Test func theSameSeedGivesTheSameDataAndADifferentSeedDoesNot() throws {
        let first = try TestDatabase()
        let second = try TestDatabase()
        let third = try TestDatabase()
        #expect(try SeedGenerator(sizes: sizes).run(on: first.adminConnection(), hasher: hasher))
        #expect(try SeedGenerator(sizes: sizes).run(on: second.adminConnection(), hasher: hasher))
        var other = sizes
        other.seed = 8
        #expect(try SeedGenerator(sizes: other).run(on: third.adminConnection(), hasher: hasher))
        #expect(try fingerprint(first) == fingerprint(second))
        #expect(try fingerprint(first) != fingerprint(third))
    }

    @Test func seededCountersAreExactAndTheShapeIsRealistic() throws {
        let database = try TestDatabase()
        try SeedGenerator(sizes: sizes).run(on: database.adminConnection(), hasher: hasher)
        let wrong = try database.scalar("""
            select (select count(*) from posts p where like_count <> (select count(*) from likes l where l.post_id = p.id)
                                               or comment_count <> (select count(*) from comments c where c.post_id = p.id))
                 + (select count(*) from comments c where reply_count <> (select count(*) from comments r where r.parent_id = c.id))
                 + (select count(*) from users u where follower_count <> (select count(*) from follows f where f.followee_id = u.id)
                                               or following_count <> (select count(*) from follows f where f.follower_id = u.id)
                                               or post_count <> (select count(*) from posts p where p.author_id = u.id))
            """, as: Int.self)
        #expect(wrong == 0)
        #expect(try database.scalar("select count(*) from posts", as: Int.self) == 600)
        // Power laws: the most liked post and most followed user stand far above the median.
        #expect(try database.scalar("select max(like_count) > 10 * percentile_disc(0.5) within group (order by like_count) from posts", as: Bool.self))
        #expect(try database.scalar("select max(follower_count) > 5 * avg(follower_count) from users", as: Bool.self))
        // Bursts: many posts share a timestamp.
        #expect(try database.scalar("select count(*) from (select created_at from posts group by 1 having count(*) > 1) s", as: Int.self) > 10)
        // Replies answer top-level comments of the same post.
        #expect(try database.scalar("""
            select count(*) from comments r join comments p on p.id = r.parent_id
            where p.parent_id is not null or p.post_id <> r.post_id
            """, as: Int.self) == 0)
        #expect(try database.scalar("select count(*) from comments where parent_id is not null", as: Int.self) > 0)
        // Every secondary index is back.
        #expect(try database.scalar("""
            select count(*) from pg_indexes where tablename in ('posts', 'likes', 'comments', 'follows')
            """, as: Int.self) == 14)
    }

    @Test func seededUsersCanSignInAndANonEmptyDatabaseIsLeftAlone() async throws {
        let app = try await TestService.started()
        #expect(try SeedGenerator(sizes: sizes).run(on: app.database.adminConnection(), hasher: hasher))
        let login = try await app.client.post("/v1/auth/login", json: ["username": "demo3", "password": SeedGenerator.password])
        #expect(login.status == 200)
        let feed = try await app.client.get("/v1/feed", token: login.json["accessToken"].string)
        #expect(feed.status == 200)
        #expect(try !SeedGenerator(sizes: sizes).run(on: app.database.adminConnection(), hasher: hasher))
        #expect(try app.database.scalar("select count(*) from posts", as: Int.self) == 600)
    }
}
