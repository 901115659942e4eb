@testable import Chirp
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
                (select string_agg(id || post_id::text || coalesce(parent_id::text, '-') || reply_count, ',' order by id) from comments),
                (select string_agg(id || recipient_id::text || kind || actor_count, ',' order by id) from notifications)))
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
        // Power laws: the most liked post stands far above the median (the follow graph's tails
        // need more users than this: `theFollowGraphHasHeavyTailsBothWays`).
        #expect(try await database.scalar("select max(like_count) > 10 * percentile_disc(0.5) within group (order by like_count) from posts", as: Bool.self))
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
            select count(*) from pg_indexes where tablename in ('posts', 'likes', 'comments', 'follows', 'notifications', 'notification_actors')
            """, as: Int.self) == 26)
    }

    @Test func homeTimelinesAreSeededAsTheTriggersWouldHaveWrittenThem() async throws {
        let database = try await TestDatabase.migrated()
        try await database.execute("""
            create or replace function app.home_timeline_threshold() returns integer
              language sql stable set search_path = pg_catalog, pg_temp as $$ select 10 $$
            """)
        #expect(try await seed(database, sizes))
        // Authors at or above the threshold pulled, and every follow of theirs read at read time.
        #expect(try await database.scalar("""
            select array(select id from users where follower_count >= 10 order by id)
                 = array(select author_id from home_timeline_pulled order by author_id)
               and exists (select from home_timeline_pulled)
            """, as: Bool.self))
        #expect(try await database.scalar("""
            select bool_and((timeline_from = 'infinity') = exists (select from home_timeline_pulled p where p.author_id = f.followee_id))
            from follows f
            """, as: Bool.self))
        // Every other author's posts within retention, once per follower, and nothing else.
        #expect(try await database.scalar("""
            with expected as (
                select f.follower_id, p.created_at, p.id, p.author_id
                from posts p join follows f on f.followee_id = p.author_id
                where p.created_at >= app.expired_before('home_timeline')
                  and not exists (select from home_timeline_pulled u where u.author_id = p.author_id)
            ), actual as (select user_id, created_at, post_id, author_id from home_timeline)
            select not exists (select * from expected except select * from actual)
               and not exists (select * from actual except select * from expected)
            """, as: Bool.self))
        // And the pulled authors' posts within retention, once each, for the feed's walk.
        #expect(try await database.scalar("""
            with expected as (
                select p.created_at, p.id, p.author_id
                from posts p join home_timeline_pulled u on u.author_id = p.author_id
                where p.created_at >= app.expired_before('home_timeline')
            ), actual as (select created_at, post_id, author_id from pulled_posts)
            select not exists (select * from expected except select * from actual)
               and not exists (select * from actual except select * from expected)
               and exists (select from actual)
            """, as: Bool.self))
        // Each with its author's slot, and each user's bits are the slots of the pulled
        // authors they follow (0036).
        #expect(try await database.scalar("""
            select bool_and(q.author_slot = s.slot) from pulled_posts q join pulled_author_slots s on s.author_id = q.author_id
            """, as: Bool.self))
        #expect(try await database.scalar("""
            with expected as (
                select f.follower_id, s.slot from follows f join pulled_author_slots s on s.author_id = f.followee_id
                where f.timeline_from = 'infinity'
            ), actual as (
                select b.user_id, i as slot from pulled_follow_bits b, generate_series(0, bit_length(b.authors) - 1) i
                where get_bit(b.authors, i) = 1
            )
            select not exists (select * from expected except select * from actual)
               and not exists (select * from actual except select * from expected)
               and exists (select from actual)
               and (select count(*) from pulled_author_slots) = (select count(*) from home_timeline_pulled)
            """, as: Bool.self))
    }

    @Test func notificationsAreSeededAsTheTriggersWouldHaveWrittenThem() async throws {
        let database = try await TestDatabase.migrated()
        #expect(try await seed(database, sizes))
        // Who is told of what, by whom, for the last 30 days of the data, nobody of their own
        // acts: the follow, each like (one group per post), a comment to the post's author,
        // a reply to the parent's author (who is then not told of it as the post's author).
        #expect(try await database.scalar("""
            with since as (select timestamptz '2026-10-31 00:00:00+00' as at),
            expected as (
                select f.followee_id as recipient, 'follow' as kind, f.follower_id::text as cause, f.follower_id as actor
                from follows f where f.created_at >= (select at from since)
                union all
                select p.author_id, 'like', p.id::text, l.user_id from likes l join posts p on p.id = l.post_id
                where l.created_at >= (select at from since) and l.user_id <> p.author_id
                union all
                select p.author_id, 'comment', c.id::text, c.author_id
                from comments c join posts p on p.id = c.post_id left join comments r on r.id = c.parent_id
                where c.created_at >= (select at from since) and c.author_id <> p.author_id and r.author_id is distinct from p.author_id
                union all
                select r.author_id, 'reply', c.id::text, c.author_id from comments c join comments r on r.id = c.parent_id
                where c.created_at >= (select at from since) and c.author_id <> r.author_id
            ), actual as (
                select n.recipient_id, n.kind, coalesce(n.follower_id::text, n.comment_id::text, n.post_id::text), a.actor_id
                from notifications n join notification_actors a on a.notification_id = n.id
            )
            select not exists (select * from expected except all select * from actual)
               and not exists (select * from actual except all select * from expected)
               and exists (select from actual)
            """, as: Bool.self))
        #expect(try await database.scalar("""
            select count(*) from notifications n
            where n.actor_count <> (select count(*) from notification_actors a where a.notification_id = n.id)
               or n.latest_at <> (select max(a.acted_at) from notification_actors a where a.notification_id = n.id)
            """, as: Int.self) == 0)
        // One like group per post.
        #expect(try await database.scalar("""
            select count(*) from (select post_id from notifications where kind = 'like' group by 1 having count(*) > 1) as twice
            """, as: Int.self) == 0)
        #expect(try await database.scalar("select count(*) from notification_reads", as: Int.self) == 40)
    }

    @Test func theFollowGraphHasHeavyTailsBothWays() async throws {
        let database = try await TestDatabase.migrated()
        let wide = SeedSizes(seed: 3, users: 1_500, posts: 10, likes: 0, follows: 30_000, comments: 0)
        #expect(try await seed(database, wide))
        let total = try await database.scalar("select count(*) from follows", as: Int.self)
        #expect(abs(total - wide.follows) < wide.follows / 50)
        #expect(try await database.scalar("select count(*) from follows where follower_id = followee_id", as: Int.self) == 0)
        // A few follow over a thousand accounts while the median follows a handful.
        #expect(try await database.scalar("select max(following_count) from users", as: Int.self) >= 1_000)
        #expect(try await database.scalar("select percentile_disc(0.5) within group (order by following_count) from users", as: Int.self) < 30)
        // demo1, demo2 and demo3 are each followed by about a third of all users, far above the
        // average; the next by fewer.
        #expect(try await database.scalar("select max(follower_count) > 5 * avg(follower_count) from users", as: Bool.self))
        #expect(try await database.scalar("""
            select bool_and(follower_count between 400 and 600) from users where username in ('demo1', 'demo2', 'demo3')
            """, as: Bool.self))
        #expect(try await database.scalar("""
            select max(follower_count) from users where username not in ('demo1', 'demo2', 'demo3')
            """, as: Int.self) < 400)
        // Below them a power law too: the most followed of the rest far above the median, with
        // many steps between, so there is an author just below most thresholds.
        #expect(try await database.scalar("""
            select max(follower_count) > 5 * percentile_disc(0.5) within group (order by follower_count)
            from users where username not in ('demo1', 'demo2', 'demo3')
            """, as: Bool.self))
        #expect(try await database.scalar("""
            select count(distinct follower_count) from users
            where follower_count > 2 * (select percentile_disc(0.5) within group (order by follower_count) from users)
            """, as: Int.self) > 20)
    }

    @Test func textDrawsFromAZipfVocabulary() async throws {
        let database = try await TestDatabase.migrated()
        let wordy = SeedSizes(seed: 5, users: 20, posts: 4_000, likes: 0, follows: 40, comments: 0)
        #expect(try await seed(database, wordy))
        try await database.execute("""
            create table word_counts as select word, nentry as uses from ts_stat('select to_tsvector(''simple'', body) from posts')
            where word !~ '^[0-9]+$'
            """)
        #expect(try await database.scalar("select count(*) from word_counts", as: Int.self) > 2_000)
        // Zipf: the top word is used about twice as often as the second, far more than the median
        // word, and many words only once.
        let first = try await database.scalar("select uses from word_counts order by uses desc limit 1", as: Int.self)
        let second = try await database.scalar("select uses from word_counts order by uses desc offset 1 limit 1", as: Int.self)
        #expect(2 * first > 3 * second && first < 3 * second)
        #expect(try await database.scalar("select max(uses) > 100 * percentile_disc(0.5) within group (order by uses) from word_counts", as: Bool.self))
        #expect(try await database.scalar("select count(*) from word_counts where uses = 1", as: Int.self) > 500)
        // The words the tests and benchmark search for stay common.
        #expect(try await database.scalar("select count(*) from word_counts where uses > (select uses from word_counts where word = 'swift')", as: Int.self) == 2)
    }

    @Test func theFollowGraphFitsSmallSizes() {
        let none = FollowGraph(users: 2, follows: 0, mostFollows: 5_000)
        #expect(none.popularAuthors == 0 && none.heaviest == 0)
        let pair = FollowGraph(users: 2, follows: 1, mostFollows: 5_000)
        #expect(pair.popularAuthors + pair.heaviest <= 1)
        let benchmark = FollowGraph(users: 10_000, follows: 300_000, mostFollows: 5_000)
        #expect(benchmark.popularAuthors == 3 && benchmark.heaviest == 4_997)
        #expect(benchmark.degreeExponent > 0.5 && benchmark.degreeExponent < 1)
        #expect(benchmark.followeeSkew > 1 && benchmark.followeeSkew < 16)
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
