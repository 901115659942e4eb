import Postgres

/// The SQL of the timelines. Every page is a range scan on a `(created_at desc, id desc)`
/// index, whatever its depth; the home feed's is a scan of `home_timeline_pkey`, with the few
/// authors that table does not hold merged in (see `home(of:below:above:limit:)`).
package enum TimelineQueries {
    /// Settings of a home feed transaction, applied with its identity: generic plans, because
    /// the page's plan must not depend on the values (how many authors a viewer follows, how
    /// deep the page is), and planning it again for each request would cost more than running it;
    /// and no bitmap scans: every part of the page is read in index order and stops at its
    /// bound, which a bitmap scan (all of a range, then sorted) does not. The planner reached for
    /// one in the walk once the read policy's per-row check for users in a block (0028) made
    /// each row look dearer.
    package static let homeSettings: [PostgresIdentity.Setting] = [
        .init("plan_cache_mode", "force_generic_plan"), .init("enable_bitmapscan", "off"),
    ]

    /// How many followed pulled authors make the home feed walk the posts above `edge` once
    /// rather than probe each of their indexes (`home(of:below:above:limit:)`).
    static let walkFrom = 8
    /// The walk's bound: this many posts per followed pulled author, plus the page. A probe
    /// reads an author's index from its root, about what reading four posts in time order
    /// (each from the table, for its author) costs.
    static let walkRowsPerAuthor = 4

    /// Posts of `source` strictly between two positions, newest first, `limit` of them.
    package static func page(of source: TimelineSource, below upper: KeysetPosition, above floor: KeysetPosition, limit: Int) -> PostgresRead<[Post]> {
        query(source, below: upper, above: floor, limit: limit).rows(Post.init(row:))
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
        case .home(let viewer):
            return home(of: viewer, below: upper, above: floor, limit: limit)
        }
    }

    /// The home feed: the viewer's own posts and those of the people they follow, merged from
    /// the parts below, each post from exactly one (`docs/HOME_FEED.md`):
    ///
    /// - `pushed`: the viewer's own posts, and their `home_timeline` rows from the retention
    ///   horizon on, one range scan each, without the rows of an author in `later` older than
    ///   that follow's `timeline_from` (a pulled author's are all skipped, by a hashed
    ///   subplan: an array test would compare each row with every pulled author).
    /// - `later`: the follows whose `timeline_from` is past the horizon (pulled authors, a cut
    ///   backfill, an author pushed again): a range scan of `follows_follower_timeline_from_idx`.
    ///   Their posts older than `timeline_from` come from `walk` or from each author's own
    ///   index, and only above `edge`, the last of a full page of `pushed`: nothing below it can
    ///   make the page.
    /// - `walk`: when the viewer follows `walkFrom` pulled authors or more, one walk of
    ///   `posts_created_at_id_idx` from the page's top down to `edge`, keeping their posts (a
    ///   hash join with `later`), instead of a probe per pulled author: pulled authors write much of what is posted, so
    ///   a viewer who follows many of them finds a page of their posts among the newest few
    ///   dozen, where the probes read up to a page from each. It reads at most
    ///   `walkRowsPerAuthor` posts per pulled author plus the page and stops at a page of
    ///   theirs; when it stopped at its bound instead (neither a page nor `edge` reached), the
    ///   probes run (`walked`). The other follows in `later` are always probed.
    /// - `older`: past the horizon, every other followed author's older posts, read the way
    ///   every page was read before home timelines (a merge over every followed author). Its
    ///   gate is a one-time filter, so it runs only when fewer than a page of the newer posts
    ///   lie at or above the horizon.
    ///
    /// Each part yields positions only (`created_at`, `id`, from the indexes), and the page's
    /// `limit` posts are joined last. The viewer's id is bound, as the identity's is (row-level
    /// security still limits `home_timeline` to the identity's rows): each `(select ... from
    /// params)` is one more subplan to start on every page. `params` calls the horizon once.
    ///
    /// The authors the viewer muted are left out of each part that reads followed authors
    /// (`MuteFilter`): their follows in `later` and `older`, their rows in `pushed`.
    private static func home(of viewer: PostgresUUID, below upper: KeysetPosition, above floor: KeysetPosition, limit: Int) -> PostgresQuery {
        func muted(_ author: String) -> String { MuteFilter.and(author: author, signedIn: true) }
        return """
        with params as materialized (
            select app.expired_before('home_timeline') as horizon
        ), later as materialized (
            select f.followee_id as author_id, f.timeline_from
            from follows f
            where f.follower_id = \(viewer)
              and f.timeline_from > '-infinity' and f.timeline_from > (select horizon from params)\(unescaped: muted("f.followee_id"))
        ), pulled as materialized (
            select count(*) >= \(walkFrom) as walks,
                   count(*) * \(walkRowsPerAuthor) + \(limit) as walk_bound
            from later l where l.timeline_from = 'infinity'
        ), cut as materialized (
            select l.author_id, l.timeline_from from later l where l.timeline_from < 'infinity'
        ), pushed as materialized (
            select k.created_at, k.id from (
                (select q.created_at, q.id from posts q
                 where q.author_id = \(viewer)
                   and (q.created_at, q.id) < (\(upper.timestamp), \(upper.id))
                   and (q.created_at, q.id) > (\(floor.timestamp), \(floor.id))
                 order by q.created_at desc, q.id desc
                 limit \(limit))
                union all
                (select h.created_at, h.post_id from home_timeline h
                 where h.user_id = \(viewer)
                   and (h.created_at, h.post_id) < (\(upper.timestamp), \(upper.id))
                   and (h.created_at, h.post_id) > (\(floor.timestamp), \(floor.id))
                   and h.created_at >= (select horizon from params)
                   and h.author_id not in (select l.author_id from later l where l.timeline_from = 'infinity')
                   and not exists (select from cut c where c.author_id = h.author_id and h.created_at < c.timeline_from)\(unescaped: muted("h.author_id"))
                 order by h.created_at desc, h.post_id desc
                 limit \(limit))
            ) as k
            order by k.created_at desc, k.id desc
            limit \(limit)
        ), edge as materialized (
            select coalesce(b.created_at, \(floor.timestamp)) as created_at, coalesce(b.id, \(floor.id)) as id
            from (select) as one
            left join (select created_at, id from pushed order by created_at desc, id desc offset \(limit - 1) limit 1) as b on true
        ), walk_rows as materialized (
            select q.created_at, q.id, q.author_id from posts q
            where (select walks from pulled)
              and (q.created_at, q.id) < (\(upper.timestamp), \(upper.id))
              and (q.created_at, q.id) > ((select created_at from edge), (select id from edge))
            order by q.created_at desc, q.id desc
            limit (select walk_bound from pulled)
        ), walk as materialized (
            select w.created_at, w.id from walk_rows w
            where w.author_id in (select l.author_id from later l where l.timeline_from = 'infinity')
            limit \(limit)
        ), walked as materialized (
            select (select walks from pulled)
               and ((select count(*) from walk) = \(limit) or (select count(*) from walk_rows) < (select walk_bound from pulled)) as yes
        ), recent as materialized (
            select k.created_at, k.id from (
                select created_at, id from pushed
                union all
                select created_at, id from walk where (select yes from walked)
                union all
                select x.created_at, x.id
                from later l
                cross join lateral (
                    select q.created_at, q.id from posts q
                    where q.author_id = l.author_id and q.created_at < l.timeline_from
                      and (q.created_at, q.id) < (\(upper.timestamp), \(upper.id))
                      and (q.created_at, q.id) > ((select created_at from edge), (select id from edge))
                    order by q.created_at desc, q.id desc
                    limit \(limit)
                ) as x
                where l.timeline_from < 'infinity' or not (select yes from walked)
            ) as k
            order by k.created_at desc, k.id desc
            limit \(limit)
        ), older as (
            select x.created_at, x.id
            from follows f
            cross join lateral (
                select q.created_at, q.id from posts q
                where q.author_id = f.followee_id and q.created_at < (select horizon from params)
                  and (q.created_at, q.id) < (\(upper.timestamp), \(upper.id))
                  and (q.created_at, q.id) > (\(floor.timestamp), \(floor.id))
                order by q.created_at desc, q.id desc
                limit \(limit)
            ) as x
            where f.follower_id = \(viewer)
              and f.timeline_from <= (select horizon from params)\(unescaped: muted("f.followee_id"))
              and (select count(*) from recent r where r.created_at >= (select horizon from params)) < \(limit)
        )
        select \(unescaped: Post.columns)
        from (select created_at, id from recent
              union all
              select created_at, id from older
              order by created_at desc, id desc
              limit \(limit)) as t
        join posts p on p.id = t.id
        join users a on a.id = p.author_id
        order by t.created_at desc, t.id desc
        limit \(limit)
        """
    }
}
