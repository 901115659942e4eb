@testable import Chirp
import Foundation
import Postgres
import TestSupport
import Testing

/// The home feed read from home timelines (`sql/migrations/0012_home_timeline.sql`): whatever
/// mix of pushed rows, cut backfills, pulled authors, threshold crossings and posts past the
/// retention horizon lies behind it, every walk of the feed returns exactly the viewer's own
/// and followed posts, newest first, once each. The threshold is 3 followers and a backfill
/// 2 posts here, so that a handful of users crosses every line.
@Suite struct HomeTimelineTests {
    let app: TestService
    init() async throws {
        app = try await .started(over: .router)
        try await app.database.execute("""
            create or replace function app.home_timeline_threshold() returns integer
              language sql stable set search_path = pg_catalog, pg_temp as $$ select 3 $$
            """)
        try await app.database.execute("""
            create or replace function app.home_timeline_backfill() returns integer
              language sql stable set search_path = pg_catalog, pg_temp as $$ select 2 $$
            """)
    }

    /// The viewer's own and followed posts, newest first, without those of authors they mute,
    /// as the definition of the feed says.
    private func expectedFeed(of viewer: TestUser) async throws -> [String] {
        let result = try await app.database.execute("""
            select p.id from posts p
            where (p.author_id = \(viewer.id)::uuid
                   or p.author_id in (select followee_id from follows where follower_id = \(viewer.id)::uuid))
              and p.author_id not in (select muted_id from mutes where muter_id = \(viewer.id)::uuid)
            order by p.created_at desc, p.id desc
            """)
        return try result.rows.map { try $0.decode(UUID.self, at: 0).uuidString.lowercased() }
    }

    /// Walked as the viewer is read, and again while they mute a stranger: `app.home_feed` reads
    /// a viewer who mutes anyone (or has 32 cut follows or more) with its whole statement, one
    /// who follows many authors past the horizon, pulled or cut, with its lean one, and most
    /// viewers with its short one; each must give the feed.
    private func expectExactFeed(of viewer: TestUser, _ moment: String) async throws {
        let expected = try await expectedFeed(of: viewer)
        for limit in [1, 2, 5, 50] {
            let walked = try await app.walk("/v1/feed", limit: limit, token: viewer.accessToken).items.ids
            #expect(walked == expected, "\(moment), pages of \(limit)")
        }
        try await app.database.execute("""
            with stranger as (insert into users (username) values ('stranger_' || left(md5(random()::text), 8)) returning id)
            insert into mutes (muter_id, muted_id) select \(viewer.id)::uuid, id from stranger
            """)
        for limit in [1, 5] {
            let walked = try await app.walk("/v1/feed", limit: limit, token: viewer.accessToken).items.ids
            #expect(walked == expected, "\(moment), muting a stranger, pages of \(limit)")
        }
        try await app.database.execute("delete from mutes where muter_id = \(viewer.id)::uuid")
    }

    /// Posts written as superuser, `ago` before now, one second apart: past the API, so that
    /// they can be older than the retention horizon or share a timestamp.
    private func backdatedPosts(_ count: Int, by author: TestUser, ago: String, sameTime: Bool = false) async throws {
        try await app.database.execute("""
            insert into posts (author_id, body, created_at)
            select \(author.id)::uuid, 'backdated ' || i,
                   now() - \(ago)::interval - case when \(sameTime) then interval '0' else i * interval '1 second' end
            from generate_series(1, \(count)) i
            """)
    }

    @Test func everyWalkOfTheFeedIsExactAcrossEveryWayATimelineIsBuilt() async throws {
        let (viewer, pushed, cut, pulled, flipping) = try await app.signUp("viewer", "pushed", "cut", "pulled", "flipping")
        let (fan1, fan2) = try await app.signUp("fan", "fan")

        // Before the viewer follows anyone: posts past the 30-day horizon, and four recent
        // posts of `cut`, of which the follow copies two.
        for author in [viewer, pushed, cut, pulled, flipping] {
            try await backdatedPosts(3, by: author, ago: "40 days")
        }
        try await backdatedPosts(4, by: cut, ago: "2 hours")
        for author in [pushed, cut, pulled, flipping] {
            try await app.follow(author, by: viewer)
        }
        #expect(try await app.count("""
            select count(*) from follows where follower_id = \(viewer.id)::uuid and followee_id = \(cut.id)::uuid
              and timeline_from > '-infinity' and timeline_from < 'infinity'
            """) == 1)
        try await expectExactFeed(of: viewer, "after the follows")

        // `pulled` reaches three followers and posts: from then on it is merged at read time.
        try await app.follow(pulled, by: fan1)
        try await app.follow(pulled, by: fan2)
        try await app.createPost("pulled 1", by: pulled)
        try await app.createPost("pulled 2", by: pulled)
        #expect(try await app.count("select count(*) from home_timeline_pulled where author_id = \(pulled.id)::uuid") == 1)
        #expect(try await app.count("select count(*) from home_timeline where author_id = \(pulled.id)::uuid") == 0)

        // `flipping` is pushed, pulled, then pushed again.
        try await app.follow(flipping, by: fan1)
        try await app.createPost("flipping pushed", by: flipping)
        try await app.follow(flipping, by: fan2)
        try await app.createPost("flipping pulled", by: flipping)
        try await app.client.delete("/v1/users/\(flipping.username)/follow", token: fan2.accessToken).requiring(200, "unfollow")
        try await app.createPost("flipping crosses back", by: flipping)
        try await app.createPost("flipping pushed again", by: flipping)
        #expect(try await app.count("select count(*) from home_timeline_pulled where author_id = \(flipping.id)::uuid") == 0)

        // Pushed posts, one deleted, and ties across the pushed and the pulled.
        let doomed = try await app.createPost("pushed, then deleted", by: pushed)
        try await app.createPost("pushed 1", by: pushed)
        try await app.client.delete("/v1/posts/\(doomed)", token: pushed.accessToken).requiring(204, "delete")
        try await backdatedPosts(3, by: pushed, ago: "1 hour", sameTime: true)
        try await backdatedPosts(3, by: pulled, ago: "1 hour", sameTime: true)
        try await app.createPost("mine", by: viewer)

        #expect(try await app.count("select count(*) from home_timeline where user_id = \(viewer.id)::uuid") > 0)
        #expect(try await app.count("select count(*) from home_timeline where post_id = \(doomed)::uuid") == 0)
        try await expectExactFeed(of: viewer, "after crossings, deletions and ties")

        // Unfollowing takes an author's posts out at once, rows and read-time merge alike.
        for author in [pushed, pulled] {
            try await app.client.delete("/v1/users/\(author.username)/follow", token: viewer.accessToken).requiring(200, "unfollow")
        }
        #expect(try await app.count("""
            select count(*) from home_timeline where user_id = \(viewer.id)::uuid and author_id = \(pushed.id)::uuid
            """) == 0)
        try await expectExactFeed(of: viewer, "after unfollowing")
    }

    @Test func refreshingWithSinceSeesPostsOfEveryKind() async throws {
        let (viewer, pushed, pulled, fan1, fan2) = try await app.signUp("viewer", "pushed", "pulled", "fan", "fan")
        for author in [pushed, pulled] { try await app.follow(author, by: viewer) }
        try await app.follow(pulled, by: fan1)
        try await app.follow(pulled, by: fan2)
        try await app.createPost("before", by: pushed)
        let first = try await app.client.get("/v1/feed", token: viewer.accessToken).requiring(200, "the feed")
        let head = try #require(first.json["headCursor"].string)

        try await app.createPost("pulled, newer", by: pulled)
        try await app.createPost("pushed, newer", by: pushed)
        let newer = try await app.client.get("/v1/feed?since=\(head)", token: viewer.accessToken).requiring(200, "refresh")
        #expect(newer.json["items"].array.map { $0["body"].string } == ["pushed, newer", "pulled, newer"])
    }

    /// A viewer who follows many pulled authors: a page of their posts among the newest comes
    /// from one walk of the pulled authors' posts (`pulled_posts`), not a probe per author;
    /// others' posts are not in its way, but when a pulled author the viewer does not follow
    /// buries theirs, the walk stops at its bound and the probes take over. The feed is exact
    /// either way.
    @Test func manyPulledAuthorsAreMergedByOneWalkOrByProbes() async throws {
        let (viewer, pushed, stranger, cut) = try await app.signUp("viewer", "pushed", "stranger", "cut")
        // `walk_from` and `walk_rows_per_author` of `app.home_feed` (0031), `lean_cut_follows` (0038).
        let (walkFrom, walkRowsPerAuthor, leanCutFollows) = (8, 16, 32)
        let authors = walkFrom + 4
        try await app.database.execute("""
            insert into users (username) select 'pulled_' || i from generate_series(1, \(authors)) i
            union all select 'fan_' || i from generate_series(1, 2) i
            """)
        try await app.database.execute("""
            insert into follows (follower_id, followee_id)
            select f.id, a.id from users a, users f
            where a.username like 'pulled\\_%' and (f.username like 'fan\\_%' or f.id = \(viewer.id)::uuid)
            """)
        try await app.follow(pushed, by: viewer)
        try await backdatedPosts(30, by: pushed, ago: "3 hours")
        // Five posts each, interleaved, an hour ago and newer; the first makes each author pulled.
        try await app.database.execute("""
            insert into posts (author_id, body, created_at)
            select u.id, 'pulled post ' || i, now() - interval '1 hour' + (i * 100 + length(u.username)) * interval '1 second'
            from users u, generate_series(1, 5) i where u.username like 'pulled\\_%'
            """)
        #expect(try await app.count("select count(*) from home_timeline_pulled") == authors)
        try await expectExactFeed(of: viewer, "pulled posts on top")

        // A followed pulled author muted: the walk keeps a post by its author's bit, and leaves
        // out a muted author's (0036).
        let withMuted = try await expectedFeed(of: viewer)
        try await app.client.put("/v1/users/pulled_3/mute", token: viewer.accessToken).requiring(200, "mute")
        let withoutMuted = try await expectedFeed(of: viewer)
        #expect(withoutMuted.count == withMuted.count - 5)
        for limit in [1, 5, 50] {
            let walked = try await app.walk("/v1/feed", limit: limit, token: viewer.accessToken).items.ids
            #expect(walked == withoutMuted, "a followed pulled author muted, pages of \(limit)")
        }
        try await app.client.delete("/v1/users/pulled_3/mute", token: viewer.accessToken).requiring(200, "unmute")

        let limit = PageSize.defaultSize + 1
        let viewerID = try #require(PostgresUUID(canonical: viewer.id))
        let query = TimelineQueries.page(of: .home(viewer: viewerID), below: .top, above: .bottom, limit: limit).query
        let identity = PostgresIdentity.user(viewerID).adding(TimelineQueries.homeSettings)
        let walked = try await app.statementReads(of: query, as: identity)
        // The walk reads down to the page's last pulled post; only the viewer's own posts are
        // read by author, and no post in time order.
        #expect((walked.rows["pulled_posts_pkey"] ?? 0) <= limit, "\(walked)")
        #expect((walked.rows["posts_author_created_at_id_idx"] ?? 0) == 0, "\(walked)")
        #expect((walked.rows["posts_created_at_id_idx"] ?? 0) == 0, "\(walked)")
        // And the page is joined by key: no table read whole (`TimelineQueries.homeSettings`).
        #expect(walked.sequentialScans == 0, "\(walked)")

        // A cut backfill beside the walk: its posts before `timeline_from` are still probed.
        try await backdatedPosts(4, by: cut, ago: "30 minutes")
        try await app.follow(cut, by: viewer)
        try await expectExactFeed(of: viewer, "a cut follow beside the walk")

        // More cut follows than the first query reads (`walk_from`): counted, the lean statement
        // reads the viewer (0038); as many as `lean_cut_follows`, the whole one, muting or not.
        for (manyCut, statement) in [(walkFrom, "lean"), (leanCutFollows, "whole")] {
            try await app.database.execute("""
                insert into users (username) select 'manycut_' || i from generate_series(1, \(manyCut)) i
                where not exists (select from users u where u.username = 'manycut_' || i)
                """)
            try await app.database.execute("""
                insert into posts (author_id, body, created_at)
                select u.id, 'cut post ' || i, now() - interval '40 minutes' + (i * 10 + length(u.username)) * interval '1 second'
                from users u, generate_series(1, 3) i
                where u.username like 'manycut\\_%' and not exists (select from posts p where p.author_id = u.id)
                """)
            try await app.database.execute("""
                insert into follows (follower_id, followee_id) select \(viewer.id)::uuid, id from users where username like 'manycut\\_%'
                on conflict do nothing
                """)
            #expect(try await app.count("""
                select count(*) from follows where follower_id = \(viewer.id)::uuid and timeline_from > '-infinity' and timeline_from < 'infinity'
                """) == manyCut + 1)
            // (Over 100 posts now: pages of 2 and more.)
            let withManyCut = try await expectedFeed(of: viewer)
            for limit in [2, 5, 50] {
                let walked = try await app.walk("/v1/feed", limit: limit, token: viewer.accessToken).items.ids
                #expect(walked == withManyCut, "\(manyCut + 1) cut follows beside the walk (\(statement)), pages of \(limit)")
            }
        }
        try await app.database.execute("""
            delete from follows where follower_id = \(viewer.id)::uuid and followee_id in (select id from users where username like 'manycut\\_%')
            """)

        // 500 newer posts by a stranger the viewer does not follow: the walk passes over none.
        try await app.database.execute("""
            insert into posts (author_id, body, created_at)
            select \(stranger.id)::uuid, 'stranger ' || i, now() - i * interval '1 second' from generate_series(1, 500) i
            """)
        try await expectExactFeed(of: viewer, "pulled posts behind a stranger's")
        let passed = try await app.statementReads(of: query, as: identity)
        #expect((passed.rows["pulled_posts_pkey"] ?? 0) <= limit, "\(passed)")
        // The stranger becomes a pulled author and posts 500 more: the walk stops at its bound,
        // the probes find the page.
        for fan in try await app.signUp("fan", count: 3) { try await app.follow(stranger, by: fan) }
        try await app.database.execute("""
            insert into posts (author_id, body, created_at)
            select \(stranger.id)::uuid, 'pulled stranger ' || i, now() - i * interval '1 millisecond' from generate_series(1, 500) i
            """)
        try await expectExactFeed(of: viewer, "pulled posts behind a pulled stranger's")
        let probed = try await app.statementReads(of: query, as: identity)
        let bound = authors * walkRowsPerAuthor + limit
        #expect(probed.rows["pulled_posts_pkey"] == bound, "\(probed)")
        #expect((probed.rows["posts_author_created_at_id_idx"] ?? 0) >= limit, "\(probed)")

        // Without the cut follow every follow past the horizon is a pulled author's: the lean
        // statement reads the page the same way, with no cut follow to probe.
        try await app.unfollow(cut, by: viewer)
        try await expectExactFeed(of: viewer, "pulled posts behind a pulled stranger's, no cut follow")
        let lean = try await app.statementReads(of: query, as: identity)
        #expect(lean.rows["pulled_posts_pkey"] == bound, "\(lean)")
        #expect((lean.rows["posts_author_created_at_id_idx"] ?? 0) >= limit, "\(lean)")

        // The walk keeps a post by its author's bit in the viewer's row (0036): an unfollowed
        // pulled author's posts leave the page, and an author pushed again is read by probes
        // up to the crossing, pushed after it.
        try await app.database.execute("""
            delete from follows where follower_id = \(viewer.id)::uuid and followee_id = (select id from users where username = 'pulled_1')
            """)
        try await expectExactFeed(of: viewer, "a pulled author unfollowed")
        try await app.database.execute("""
            delete from follows where followee_id = (select id from users where username = 'pulled_2') and follower_id <> \(viewer.id)::uuid
            """)
        for body in ["crossing down", "pushed again"] {
            try await app.database.execute("""
                insert into posts (author_id, body) select id, \(body) from users where username = 'pulled_2'
                """)
        }
        #expect(try await app.count("select count(*) from home_timeline where post_id in (select id from posts where body = 'pushed again')") == 1)
        try await expectExactFeed(of: viewer, "a pulled author pushed again")

        // An author pushed, pulled, then pushed again: the rows pushed before the pull stay in
        // the viewer's timeline, older than the follow's timeline_from, and the lean statement
        // skips them, since its probes read those posts from the author's index (0037).
        let (flipper, fanA, fanB) = try await app.signUp("flipper", "fan", "fan")
        try await app.follow(flipper, by: viewer)
        try await app.createPost("flipper pushed", by: flipper)
        try await app.follow(flipper, by: fanA)
        try await app.follow(flipper, by: fanB)
        try await app.createPost("flipper pulled", by: flipper)
        // Pulled: the row pushed before the pull stays in the viewer's timeline, and both
        // statements skip it, since the walk finds that post in pulled_posts (0039).
        try await expectExactFeed(of: viewer, "an author pushed, then pulled")
        try await app.client.delete("/v1/users/\(flipper.username)/follow", token: fanB.accessToken).requiring(200, "unfollow")
        try await app.createPost("flipper crosses back", by: flipper)
        #expect(try await app.count("""
            select count(*) from home_timeline h join follows f on f.follower_id = h.user_id and f.followee_id = h.author_id
            where h.user_id = \(viewer.id)::uuid and h.author_id = \(flipper.id)::uuid and h.created_at < f.timeline_from
            """) == 1)
        try await expectExactFeed(of: viewer, "an author pushed, pulled and pushed again")
    }

    @Test func aFirstPageReadsAboutAPageOfRowsWhateverTheNumberOfFollows() async throws {
        let (viewer, pulled, fan1, fan2) = try await app.signUp("viewer", "pulled", "fan", "fan")
        // 300 pushed authors of 20 recent posts each, all followed by the viewer: 6,000 rows
        // in the viewer's timeline. And one pulled author.
        try await app.database.execute("insert into users (username) select 'author_' || i from generate_series(1, 300) i")
        try await app.database.execute("""
            insert into follows (follower_id, followee_id)
            select \(viewer.id)::uuid, id from users where username like 'author\\_%'
            """)
        try await app.database.execute("""
            insert into posts (author_id, body, created_at)
            select u.id, 'post ' || i, now() - (i * 300 + length(u.username)) * interval '1 second'
            from users u, generate_series(1, 20) i where u.username like 'author\\_%'
            """)
        for follower in [viewer, fan1, fan2] { try await app.follow(pulled, by: follower) }
        try await app.createPost("pulled", by: pulled)
        #expect(try await app.count("select count(*) from home_timeline where user_id = \(viewer.id)::uuid") == 6_000)

        let limit = PageSize.defaultSize + 1
        let viewerID = try #require(PostgresUUID(canonical: viewer.id))
        let query = TimelineQueries.page(of: .home(viewer: viewerID), below: .top, above: .bottom, limit: limit).query
        let reads = try await app.statementReads(of: query, as: PostgresIdentity.user(viewerID).adding(TimelineQueries.homeSettings))
        // A page of timeline rows, a page of the one pulled author's posts (and of the viewer's
        // own), the page's posts and authors by key; no merge over the 300 followed authors.
        #expect((reads.rows["home_timeline_pkey"] ?? 0) <= limit, "\(reads)")
        #expect((reads.rows["posts_author_created_at_id_idx"] ?? 0) <= 2 * limit, "\(reads)")
        // The authors' key is left out: the counter triggers updated each author's row 20 times,
        // and the entries of those dead versions count as read until a vacuum.
        #expect(reads.rows.filter { $0.key != "users_pkey" }.values.reduce(0, +) <= 8 * limit, "\(reads)")
        #expect(reads.sequentialScans == 0, "\(reads)")
    }
}
