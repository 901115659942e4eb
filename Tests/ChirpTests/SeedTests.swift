import Chirp
import Foundation
import Postgres
import TestSupport
import Testing

/// `chirp seed`: deterministic, exact counters, a realistic shape, and users who can sign in.
/// The sign-in goes through the router: HTTP is not the point.
@Suite struct SeedTests {
    let sizes = SeedSizes(seed: 7, users: 40, posts: 600, likes: 3_000, follows: 300, comments: 400)
    /// The test services' own parameters, so that a seeded user's login is not also a rehash.
    let hasher = PasswordHasher(parameters: .leastForTests)

    /// A digest of everything seeded, ids included.
    func fingerprint(_ database: TestDatabase) async throws -> String {
        try await database.scalar("""
            select md5(concat_ws('|',
                (select string_agg(id || username || display_name || follower_count || following_count || post_count, ',' order by id) from users),
                (select string_agg(id || author_id::text || body || created_at || like_count || comment_count, ',' order by id) from posts),
                (select string_agg(user_id || post_id::text || created_at, ',' order by user_id, post_id) from likes),
                (select string_agg(follower_id || followee_id::text, ',' order by follower_id, followee_id) from follows),
                (select string_agg(id || post_id::text || coalesce(parent_id::text, '-') || reply_count, ',' order by id) from comments)))
            """)
    }

    /// Seeds `database`; whether it wrote anything.
    func seed(_ database: TestDatabase, _ sizes: SeedSizes) async throws -> Bool {
        try await database.adminPool.withSession { try await SeedGenerator(sizes: sizes).run(in: $0, hasher: hasher) }
    }

    @Test func theSameSeedGivesTheSameDataAndADifferentSeedDoesNot() async throws {
        let first = try await TestDatabase.migrated()
        let second = try await TestDatabase.migrated()
        let third = try await TestDatabase.migrated()
        #expect(try await seed(first, sizes))
        #expect(try await seed(second, sizes))
        var other = sizes
        other.seed = 8
        #expect(try await seed(third, other))
        let fingerprints = [try await fingerprint(first), try await fingerprint(second), try await fingerprint(third)]
        #expect(fingerprints[0] == fingerprints[1])
        #expect(fingerprints[0] != fingerprints[2])
    }

    @Test func seededCountersAreExactAndTheShapeIsRealistic() async throws {
        let database = try await TestDatabase.migrated()
        #expect(try await seed(database, sizes))
        let wrong = try await database.scalar("""
            select (select count(*) from posts p where like_count <> (select count(*) from likes l where l.post_id = p.id)
                                               or comment_count <> (select count(*) from comments c where c.post_id = p.id))
                 + (select count(*) from comments c where reply_count <> (select count(*) from comments r where r.parent_id = c.id))
                 + (select count(*) from users u where follower_count <> (select count(*) from follows f where f.followee_id = u.id)
                                               or following_count <> (select count(*) from follows f where f.follower_id = u.id)
                                               or post_count <> (select count(*) from posts p where p.author_id = u.id))
            """, as: Int.self)
        #expect(wrong == 0)
        #expect(try await database.scalar("select count(*) from posts", as: Int.self) == 600)
        // Power laws: the most liked post and most followed user stand far above the median.
        #expect(try await database.scalar("select max(like_count) > 10 * percentile_disc(0.5) within group (order by like_count) from posts", as: Bool.self))
        #expect(try await database.scalar("select max(follower_count) > 5 * avg(follower_count) from users", as: Bool.self))
        // Bursts: many posts share a timestamp.
        #expect(try await database.scalar("select count(*) from (select created_at from posts group by 1 having count(*) > 1) s", as: Int.self) > 10)
        // Replies answer top-level comments of the same post.
        #expect(try await database.scalar("""
            select count(*) from comments r join comments p on p.id = r.parent_id
            where p.parent_id is not null or p.post_id <> r.post_id
            """, as: Int.self) == 0)
        #expect(try await database.scalar("select count(*) from comments where parent_id is not null", as: Int.self) > 0)
        // Every secondary index is back.
        #expect(try await database.scalar("""
            select count(*) from pg_indexes where tablename in ('posts', 'likes', 'comments', 'follows')
            """, as: Int.self) == 14)
    }

    @Test func seededUsersCanSignInAndANonEmptyDatabaseIsLeftAlone() async throws {
        let app = try await TestService.started(over: .router)
        #expect(try await seed(app.database, sizes))
        let login = try await app.client.post("/v1/auth/login", json: ["username": "demo3", "password": SeedGenerator.password])
        #expect(login.status == 200)
        let feed = try await app.client.get("/v1/feed", token: login.json["accessToken"].string)
        #expect(feed.status == 200)
        #expect(try await !seed(app.database, sizes))
        #expect(try await app.database.scalar("select count(*) from posts", as: Int.self) == 600)
    }
}
