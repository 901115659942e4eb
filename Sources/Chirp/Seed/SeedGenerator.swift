import EventLoops
import Foundation
import Postgres

/// Fills an empty database with realistic, deterministic data, fast enough for a million
/// posts in minutes: set-based SQL where every value is a hash of (seed, row number), so no
/// row depends on another's insertion order; triggers and secondary indexes are off during
/// the load, and counters are computed once at the end.
///
/// The shape: users with profiles; posts over six months, a quarter of them in bursts that
/// share a timestamp to the minute; authors, follows, likes and comments drawn from power
/// laws, so a few accounts are huge and a few posts go viral; comments with one level of
/// replies; home timelines as the service would have written them. The follow graph has
/// heavy tails both ways (`FollowGraph`): demo1, demo2 and demo3 are each followed by about a
/// third of all users, and a few users follow thousands.
/// Text draws from a vocabulary of `SeedSizes.words` words by a Zipf law, so some words are
/// everywhere and many are rare. Every seeded user signs in with `SeedGenerator.password`.
///
/// Runs as a superuser (the migrating role): it writes every user's rows and switches
/// triggers off with `session_replication_role`.
public struct SeedGenerator: Sendable {
    public static let password = "chirp-demo-password"
    public let sizes: SeedSizes

    public init(sizes: SeedSizes) {
        self.sizes = sizes
    }

    /// The tables the load fills and whose secondary indexes it rebuilds afterwards.
    static let loadedTables = ["posts", "likes", "comments", "follows", "notifications", "notification_actors"]

    /// Returns false, writing nothing, when the database already has users. The password hash
    /// every seeded user shares is made with `hasher` on a thread made for blocking.
    @discardableResult
    public func run(in session: PostgresSession, hasher: PasswordHasher, progress: (String) -> Void = { _ in }) async throws -> Bool {
        if try await session.execute(Self.hasUsers) {
            return false
        }
        let passwordHash = try await BlockingWork.run { try hasher.hash(Self.password) }
        try await session.unsafeExecuteScript(Self.functions)
        try await session.unsafeExecuteScript("""
            set session_replication_role = replica;
            set synchronous_commit = off;
            set work_mem = '256MB';
            set maintenance_work_mem = '512MB';
            set max_parallel_workers_per_gather = 0;
            """)
        do {
            try await load(in: session, passwordHash: passwordHash, progress: progress)
        } catch {
            try? await session.unsafeExecuteScript("reset session_replication_role")
            throw error
        }
        try await session.unsafeExecuteScript("reset session_replication_role; analyze")
        return true
    }

    private static let hasUsers = PostgresQuery("select exists (select from users)").value(Bool.self)

    /// Drops the secondary indexes, fills the tables step by step, then builds the indexes again.
    private func load(in session: PostgresSession, passwordHash: String, progress: (String) -> Void) async throws {
        let indexes = try await dropSecondaryIndexes(in: session)
        for (name, statement) in steps(passwordHash: passwordHash) {
            let started = Date()
            try await session.execute(statement)
            progress("\(name) (\(String(format: "%.1f", Date().timeIntervalSince(started))) s)")
        }
        let started = Date()
        for definition in indexes {
            try await session.unsafeExecuteScript(definition)
        }
        progress("indexes (\(String(format: "%.1f", Date().timeIntervalSince(started))) s)")
    }

    /// Drops the indexes that back no constraint and returns the statements that recreate
    /// them exactly as the migrations made them.
    private func dropSecondaryIndexes(in session: PostgresSession) async throws -> [String] {
        let indexes = try await session.execute(PostgresQuery("""
            select i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
            from pg_index i join pg_class t on t.oid = i.indrelid
            where t.relname = any(\(Self.loadedTables)) and t.relnamespace = 'public'::regnamespace
              and not exists (select from pg_constraint c where c.conindid = i.indexrelid)
            """).rows { try $0.decode((String, String).self) })
        for (name, _) in indexes {
            try await session.unsafeExecuteScript("drop index \(name)")
        }
        return indexes.map(\.1)
    }

    /// The most words `SeedSizes.words` can name: the common words, then every pseudo-word of
    /// two, three and four syllables.
    public static let largestVocabulary = 32 + 4_225 + 274_625 + 17_850_625

    /// Deterministic helpers for this session: `unit` is a uniform draw in [0, 1) keyed by
    /// (row, salt); the others name what they compute, so a reply finds its parent's post
    /// and a like its post's time without a join.
    ///
    /// Text: `words` draws each word's rank w by a Zipf law, with chance
    /// ln(1 + 1/w) / ln(vocabulary + 1) (at 10,000 words: 7.5% for the first, 1 in 90,000 for
    /// the last), and `word` names it: first 32 real words (`swift` third, at 10,000 words as
    /// common as it was when text drew from those 32 alone), then pseudo-words of two, three
    /// and four consonant-vowel syllables, each length's spellings in an order scrambled by a
    /// multiplier prime to their number, so common words do not all begin alike. No syllable
    /// has a `d`, so no pseudo-word spells one of the real words (`ride`). `words` returns a
    /// set (of one row) so that a statement's `lateral pg_temp.words(…)` inlines it as a
    /// subquery: a scalar SQL function around an aggregate would start an executor per call,
    /// which made the posts step twenty times slower.
    static let functions = """
        create function pg_temp.unit(i int8, salt int8) returns float8 language sql immutable
          as $$ select (hashint8extended(i, salt) & 140737488355327)::float8 / 140737488355328.0 $$;
        create function pg_temp.uid(kind text, seed int8, i int8) returns uuid language sql immutable
          as $$ select md5(kind || ':' || seed || ':' || i)::uuid $$;
        create function pg_temp.skewed(i int8, salt int8, n int8, power float8) returns int8 language sql immutable
          as $$ select 1 + floor(n * pg_temp.unit(i, salt) ^ power)::int8 $$;
        create function pg_temp.post_time(seed int8, i int8) returns timestamptz language sql immutable
          as $$ select case when pg_temp.unit(i, seed * 64 + 3) < 0.25
                 then timestamptz '2026-11-30 00:00:00+00' - floor(pg_temp.unit(i, seed * 64 + 4) * 400) * interval '15 minutes'
                 else timestamptz '2026-11-30 00:00:00+00' - pg_temp.unit(i, seed * 64 + 2) * interval '180 days' end $$;
        create function pg_temp.comment_post(seed int8, j int8, posts int8) returns int8 language sql immutable
          as $$ select pg_temp.skewed(j, seed * 64 + 20, posts, 3) $$;
        create function pg_temp.syllable(n int8) returns text language sql immutable
          as $$ select substr('bfgklmnprstvz', 1 + (n / 5 % 13)::int, 1) || substr('aeiou', 1 + (n % 5)::int, 1) $$;
        create function pg_temp.pseudo_word(n int8, spellings int8) returns text language sql immutable
          as $$ select case when spellings > 274625 then pg_temp.syllable(n / 274625) else '' end
                 || case when spellings > 4225 then pg_temp.syllable(n / 4225) else '' end
                 || pg_temp.syllable(n / 65) || pg_temp.syllable(n) $$;
        create function pg_temp.word(w int8) returns text language sql immutable
          as $$ select case
                 when w <= 32 then (array['new','today','swift','postgres','feed','release','team','build','fix','happy','finally',
                   'coffee','design','weekend','music','shipping','launch','review','bug','fast','slow','old','ride','cache','query',
                   'plan','test','index','latency','cursor','keyset','scroll'])[w]
                 when w <= 4257 then pg_temp.pseudo_word((w - 33) * 2731 % 4225, 4225)
                 when w <= 278882 then pg_temp.pseudo_word((w - 4258) * 2731 % 274625, 274625)
                 else pg_temp.pseudo_word((w - 278883) * 2731 % 17850625, 17850625) end $$;
        create function pg_temp.words(i int8, salt int8, n int, vocabulary int8) returns setof text language sql immutable
          as $$ select string_agg(pg_temp.word(w), ' ' order by k)
                from (select k, least(vocabulary, floor((vocabulary + 1)::float8 ^ pg_temp.unit(i * 16 + k, salt))::int8) as w
                      from generate_series(1, n) k offset 0) as drawn $$;
        """

    private func steps(passwordHash: String) -> [(String, PostgresQuery)] {
        let seed = sizes.seed
        let (users, posts, likes, follows, comments) = (sizes.users, sizes.posts, sizes.likes, sizes.follows, sizes.comments)
        let topLevel = max(1, comments * 7 / 10)
        let vocabulary = min(max(1, sizes.words), Self.largestVocabulary)
        return [
            ("users", """
                insert into users (id, username, display_name, bio, created_at)
                select pg_temp.uid('user', \(seed), i), 'demo' || i,
                       initcap((array['ada','grace','alan','linus','margaret','ken','barbara','edsger','frances','donald'])[1 + (hashint8extended(i, \(seed) * 64 + 10) & 7)])
                         || ' ' || initcap((array['lovelace','hopper','turing','torvalds','hamilton','thompson','liskov','dijkstra','allen','knuth'])[1 + (hashint8extended(i, \(seed) * 64 + 11) & 7)]),
                       'Writes about ' || bio.words,
                       timestamptz '2026-05-01 00:00:00+00' + pg_temp.unit(i, \(seed) * 64 + 13) * interval '30 days'
                from generate_series(1, \(users)::int8) as i, lateral pg_temp.words(i, \(seed) * 64 + 12, 2, \(vocabulary)) as bio(words)
                """),
            ("credentials", "insert into credentials (user_id, password_hash) select id, \(passwordHash) from users"),
            // Oldest first, as a live service writes them: the table's physical order follows
            // time, and a probe of the search index by hour reads the stretch of the table that
            // hour was written to, as it would in production, not pages from all over it.
            ("posts", """
                insert into posts (id, author_id, body, created_at)
                select pg_temp.uid('post', \(seed), i),
                       pg_temp.uid('user', \(seed), pg_temp.skewed(i, \(seed) * 64 + 1, \(users), 2.5)),
                       initcap(body.words) || ' #' || i,
                       pg_temp.post_time(\(seed), i)
                from generate_series(1, \(posts)::int8) as i,
                     lateral pg_temp.words(i, \(seed) * 64 + 5, 3 + (hashint8extended(i, \(seed) * 64 + 6) & 7)::int, \(vocabulary)) as body(words)
                order by 4
                """),
            ("follows", FollowGraph(users: users, follows: follows, mostFollows: sizes.mostFollows).insert(seed: seed)),
            ("likes", """
                insert into likes (user_id, post_id, created_at)
                select pg_temp.uid('user', \(seed), pg_temp.skewed(k, \(seed) * 64 + 17, \(users), 1)),
                       pg_temp.uid('post', \(seed), post),
                       least(timestamptz '2026-11-30 00:00:00+00', pg_temp.post_time(\(seed), post) + pg_temp.unit(k, \(seed) * 64 + 19) * interval '3 days')
                from generate_series(1, \(likes)::int8) as k,
                     lateral (select pg_temp.skewed(k, \(seed) * 64 + 18, \(posts), 3) as post) as chosen
                on conflict do nothing
                """),
            ("comments", """
                insert into comments (id, post_id, author_id, body, created_at)
                select pg_temp.uid('comment', \(seed), j), pg_temp.uid('post', \(seed), post),
                       pg_temp.uid('user', \(seed), pg_temp.skewed(j, \(seed) * 64 + 21, \(users), 1)),
                       initcap(body.words),
                       least(timestamptz '2026-11-30 00:00:00+00', pg_temp.post_time(\(seed), post) + pg_temp.unit(j, \(seed) * 64 + 24) * interval '2 days')
                from generate_series(1, \(topLevel)::int8) as j,
                     lateral (select pg_temp.comment_post(\(seed), j, \(posts)) as post) as chosen,
                     lateral pg_temp.words(j, \(seed) * 64 + 22, 2 + (hashint8extended(j, \(seed) * 64 + 23) & 7)::int, \(vocabulary)) as body(words)
                """),
            ("replies", """
                insert into comments (id, post_id, parent_id, author_id, body, created_at)
                select pg_temp.uid('comment', \(seed), \(topLevel)::int8 + r), pg_temp.uid('post', \(seed), pg_temp.comment_post(\(seed), parent, \(posts))),
                       pg_temp.uid('comment', \(seed), parent),
                       pg_temp.uid('user', \(seed), pg_temp.skewed(r, \(seed) * 64 + 25, \(users), 1)),
                       initcap(body.words),
                       least(timestamptz '2026-11-30 00:00:00+00',
                             pg_temp.post_time(\(seed), pg_temp.comment_post(\(seed), parent, \(posts))) + interval '2 days' + pg_temp.unit(r, \(seed) * 64 + 28) * interval '1 day')
                from generate_series(1, \(comments - topLevel)::int8) as r,
                     lateral (select pg_temp.skewed(r, \(seed) * 64 + 29, \(topLevel), 2) as parent) as chosen,
                     lateral pg_temp.words(r, \(seed) * 64 + 26, 2 + (hashint8extended(r, \(seed) * 64 + 27) & 3)::int, \(vocabulary)) as body(words)
                """),
            ("post counters", """
                update posts p set like_count = coalesce(l.n, 0), comment_count = coalesce(c.n, 0)
                from posts q
                left join (select post_id, count(*) as n from likes group by post_id) l on l.post_id = q.id
                left join (select post_id, count(*) as n from comments group by post_id) c on c.post_id = q.id
                where p.id = q.id and (l.n is not null or c.n is not null)
                """),
            ("reply counters", """
                update comments c set reply_count = r.n
                from (select parent_id, count(*) as n from comments where parent_id is not null group by parent_id) r
                where c.id = r.parent_id
                """),
            ("user counters", """
                update users u set post_count = coalesce(p.n, 0), follower_count = coalesce(fr.n, 0), following_count = coalesce(fg.n, 0)
                from users v
                left join (select author_id, count(*) as n from posts group by author_id) p on p.author_id = v.id
                left join (select followee_id, count(*) as n from follows group by followee_id) fr on fr.followee_id = v.id
                left join (select follower_id, count(*) as n from follows group by follower_id) fg on fg.follower_id = v.id
                where u.id = v.id
                """),
            // Home timelines as the triggers of 0012, 0031 and 0036 would have left them had every
            // post been written after the follows: authors at or above the threshold pulled from
            // the start (their posts within retention in pulled_posts), every other author's
            // pushed to each follower. In key order, so the primary keys grow at their right edge.
            ("pulled authors", """
                insert into home_timeline_pulled (author_id, since)
                select id, '-infinity' from users where follower_count >= app.home_timeline_threshold()
                """),
            ("follows of pulled authors", """
                update follows f set timeline_from = 'infinity'
                from home_timeline_pulled p where p.author_id = f.followee_id
                """),
            ("home timelines", """
                insert into home_timeline (user_id, created_at, post_id, author_id)
                select f.follower_id, p.created_at, p.id, p.author_id
                from posts p join follows f on f.followee_id = p.author_id
                where p.created_at >= app.expired_before('home_timeline')
                  and not exists (select from home_timeline_pulled u where u.author_id = p.author_id)
                order by 1, 2, 3
                """),
            ("pulled author slots", """
                insert into pulled_author_slots (author_id)
                select author_id from home_timeline_pulled order by author_id
                """),
            ("pulled follow bits", """
                insert into pulled_follow_bits (user_id, authors, latest_pull)
                select f.follower_id, app.bits_of(array_agg(s.slot)), max(u.since)
                from follows f
                join home_timeline_pulled u on u.author_id = f.followee_id
                join pulled_author_slots s on s.author_id = f.followee_id
                group by f.follower_id
                """),
            ("pulled posts", """
                insert into pulled_posts (created_at, post_id, author_id, author_slot)
                select p.created_at, p.id, p.author_id, s.slot
                from posts p join pulled_author_slots s on s.author_id = p.author_id
                where p.created_at >= app.expired_before('home_timeline')
                order by 1, 2
                """),
        ] + notificationSteps
    }

    /// Notifications as the triggers of 0027 would have left them for the last 30 days of the
    /// data (it ends on 2026-11-30): a follow's, one group of every like of each post, and each
    /// comment's or reply's, nobody told of their own. Everything before 2026-11-28 is read, so
    /// each user has a few days of unread ones. Ids are hashes of their cause.
    private var notificationSteps: [(String, PostgresQuery)] {
        let since = "timestamptz '2026-10-31 00:00:00+00'"
        return [
            ("follow notifications", """
                insert into notifications (id, recipient_id, kind, follower_id, latest_at, actor_count)
                select md5('follow:' || f.follower_id || f.followee_id)::uuid, f.followee_id, 'follow', f.follower_id, f.created_at, 1
                from follows f where f.created_at >= \(unescaped: since)
                """),
            ("like notifications", """
                insert into notifications (id, recipient_id, kind, post_id, latest_at, actor_count)
                select md5('like:' || p.id)::uuid, p.author_id, 'like', p.id, max(l.created_at), count(*)
                from likes l join posts p on p.id = l.post_id
                where l.created_at >= \(unescaped: since) and l.user_id <> p.author_id
                group by p.id
                """),
            ("comment notifications", """
                insert into notifications (id, recipient_id, kind, post_id, comment_id, latest_at, actor_count)
                select md5('comment:' || c.id)::uuid, p.author_id, 'comment', c.post_id, c.id, c.created_at, 1
                from comments c join posts p on p.id = c.post_id left join comments parent on parent.id = c.parent_id
                where c.created_at >= \(unescaped: since) and c.author_id <> p.author_id and parent.author_id is distinct from p.author_id
                union all
                select md5('reply:' || c.id)::uuid, parent.author_id, 'reply', c.post_id, c.id, c.created_at, 1
                from comments c join comments parent on parent.id = c.parent_id
                where c.created_at >= \(unescaped: since) and c.author_id <> parent.author_id
                """),
            ("notification actors", """
                insert into notification_actors (notification_id, actor_id, recipient_id, liked_post_id, acted_at)
                select n.id, n.follower_id, n.recipient_id, null::uuid, n.latest_at from notifications n where n.kind = 'follow'
                union all
                select n.id, c.author_id, n.recipient_id, null, n.latest_at from notifications n join comments c on c.id = n.comment_id
                union all
                select md5('like:' || p.id)::uuid, l.user_id, p.author_id, p.id, l.created_at
                from likes l join posts p on p.id = l.post_id
                where l.created_at >= \(unescaped: since) and l.user_id <> p.author_id
                """),
            ("notification read marks", """
                insert into notification_reads (user_id, read_at, read_id)
                select id, timestamptz '2026-11-28 00:00:00+00', 'ffffffff-ffff-ffff-ffff-ffffffffffff' from users
                """),
        ]
    }
}
