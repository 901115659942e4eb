import Foundation
import Postgres

/// Demo data for a fresh database: a small, deterministic social graph to click through.
/// Runs as the migrating role (it writes every user's rows, which no request role may).
public struct DemoSeed: Sendable {
    public var users: Int
    public var posts: Int
    public var seed: Double
    /// Every demo account signs in with this password.
    public static let password = "chirp-demo-password"

    public init(users: Int = 50, posts: Int = 1_000, seed: Int = 1) {
        self.users = users
        self.posts = posts
        self.seed = Double(seed % 1_000) / 1_000
    }

    /// Returns false (and writes nothing) when the database already has users.
    @discardableResult
    public func run(on connection: PostgresConnection, hasher: PasswordHasher) throws -> Bool {
        let existing = try connection.query("select exists (select from users)").rows[0].decode(Bool.self, at: 0)
        if existing { return false }
        let passwordHash = try hasher.hash(Self.password)
        try connection.pipeline([
            "begin",
            "set local max_parallel_workers_per_gather = 0",
            "select setseed(\(seed))",
            """
            insert into users (username, display_name, bio, created_at)
            select 'demo' || i, initcap(first) || ' ' || initcap(last), 'Posting about ' || topic,
                   now() - interval '120 days' + i * interval '1 hour'
            from generate_series(1, \(users)) as i,
                 lateral (select (array['ada','grace','alan','linus','margaret','ken','barbara','edsger'])[1 + i % 8] as first,
                                 (array['lovelace','hopper','turing','torvalds','hamilton','thompson','liskov','dijkstra'])[1 + (i / 8) % 8] as last,
                                 (array['swift','postgres','cycling','coffee','design','music'])[1 + i % 6] as topic) as names
            """,
            "insert into credentials (user_id, password_hash) select id, \(passwordHash) from users",
            """
            insert into posts (author_id, body, created_at)
            select u.id,
                   (array['Shipped a new build today','Anyone else loving the new keyset pagination?','Coffee first, then code',
                          'Hot take: SQL is the best API','Pull to refresh never felt so good','Reading about row-level security',
                          'Weekend ride: 80 km','Just published my first SwiftUI app'])[1 + (n % 8)] || ' #' || n,
                   -- bursts: many posts share a timestamp, as imports and schedulers produce
                   date_trunc('minute', now() - random() * interval '90 days')
            from generate_series(1, \(posts)) as n
            join lateral (select id from users order by username offset floor(power(random(), 3) * \(users)) + 0 * n limit 1) as u on true
            """,
            """
            insert into follows (follower_id, followee_id)
            select a.id, b.id from users a join users b on a.id <> b.id
            where random() < 0.15 + 0.5 * (b.username in ('demo1', 'demo2', 'demo3'))::int
            on conflict do nothing
            """,
            """
            insert into likes (user_id, post_id, created_at)
            select u.id, p.id, p.created_at + random() * interval '2 days'
            from posts p join users u on random() < 0.08 * (1 + 5 * (p.body like 'Hot take%')::int)
            on conflict do nothing
            """,
            """
            insert into comments (post_id, author_id, body, created_at)
            select p.id, u.id, 'Nice one, ' || split_part(u.display_name, ' ', 1) || '!', p.created_at + random() * interval '1 day'
            from posts p join users u on random() < 0.02
            """,
            """
            insert into comments (post_id, parent_id, author_id, body, created_at)
            select c.post_id, c.id, u.id, 'Agreed.', c.created_at + random() * interval '1 hour'
            from comments c join users u on random() < 0.05
            where c.parent_id is null
            """,
            "commit",
        ])
        return true
    }
}
