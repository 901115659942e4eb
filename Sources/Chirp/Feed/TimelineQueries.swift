import Postgres

/// The SQL of the timelines. Every page is a range scan on a `(created_at desc, id desc)`
/// index, whatever its depth; the home feed's is a scan of `home_timeline_pkey`, with the few
/// authors that table does not hold merged in (see `home(below:above:limit:)`).
package enum TimelineQueries {
    /// Settings of a home feed transaction, applied with its identity: a generic plan for the
    /// statement that joins the page, planned once per connection like the statements of
    /// `app.home_feed` (which sets its own): planning it for each request would cost more than
    /// running it, and would read the ends of the `users` and `posts` keys to estimate the join.
    /// And no sequential scans: on a young database's small tables one looks cheaper than a
    /// probe by key, and the plan is kept for the connection's life while the tables grow.
    package static let homeSettings: [PostgresIdentity.Setting] = [
        .init("plan_cache_mode", "force_generic_plan"), .init("enable_seqscan", "off"),
    ]

    /// Posts of `source` strictly between two positions, newest first, `limit` of them.
    package static func page(of source: TimelineSource, below upper: KeysetPosition, above floor: KeysetPosition, limit: Int) -> PostgresRead<[Post]> {
        let read = query(source, below: upper, above: floor, limit: limit).rows(Post.init(row:))
        guard case .home = source else { return read }
        // The home feed's statement has no `order by` (see `home`): its rows are ordered here.
        return PostgresRead(read.query) { result in try read.read(result).sorted { $0.position > $1.position } }
    }

    private static func query(_ source: TimelineSource, below upper: KeysetPosition, above floor: KeysetPosition, limit: Int) -> PostgresQuery {
        switch source {
        case .global(let viewer):
            return """
                select \(unescaped: Post.columns) from posts p join users a on a.id = p.author_id
                where (p.created_at, p.id) < (\(upper.timestamp), \(upper.id))
                  and (p.created_at, p.id) > (\(floor.timestamp), \(floor.id))\(unescaped: MuteFilter.and(author: "p.author_id", signedIn: viewer != nil))
                order by p.created_at desc, p.id desc
                limit \(limit)
                """
        case .author(let username):
            return """
                select \(unescaped: Post.columns) from posts p join users a on a.id = p.author_id
                where p.author_id = (select id from users where username = \(username))
                  and (p.created_at, p.id) < (\(upper.timestamp), \(upper.id))
                  and (p.created_at, p.id) > (\(floor.timestamp), \(floor.id))
                order by p.created_at desc, p.id desc
                limit \(limit)
                """
        case .home:
            return home(below: upper, above: floor, limit: limit)
        }
    }

    /// The home feed: the viewer's own posts and those of the people they follow, newest first.
    /// `app.home_feed` (0029-0033) finds the page's positions, merging the viewer's `home_timeline`
    /// rows with the authors that table does not hold (`docs/HOME_FEED.md`); the viewer is the
    /// transaction's identity, so `viewer` is not sent. The page's posts and authors are joined
    /// here, as the request role, so the read policies judge every post returned. Each is a
    /// lateral subquery kept apart (`offset 0`), so the page's positions drive the join, one
    /// probe by key per row: planned as joins, on a young database's small tables, the plan
    /// read every user and each one's posts by author and matched the page against them.
    /// The rows are ordered by `page(of:)`, not by the statement: a sort node cost a page about
    /// 115,000 instructions at the database (4% of a heavy follower's), ordering 21 rows in
    /// the service almost nothing.
    private static func home(below upper: KeysetPosition, above floor: KeysetPosition, limit: Int) -> PostgresQuery {
        """
        select \(unescaped: Post.columns)
        from app.home_feed(\(upper.timestamp), \(upper.id), \(floor.timestamp), \(floor.id), \(limit)) as t
        cross join lateral (
          select q.id, q.author_id, q.body, q.created_at, q.like_count, q.comment_count, q.edited_at
          from posts q where q.id = t.id offset 0) as p
        cross join lateral (select u.id, u.username, u.display_name from users u where u.id = p.author_id offset 0) as a
        """
    }
}
