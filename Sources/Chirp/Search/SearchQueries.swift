import HTTP
import Postgres

/// The SQL of search. A search is one read-only transaction of pipelined statements:
/// `settings` (a statement timeout and the planner settings the shapes below rely on), then
/// the page and its total (one statement for posts, two for users).
///
/// **Pages whose cost stops at the page.** Post search has two ways to a page, and each is
/// the right one for some words and a disaster for others: walking an index in the page's
/// order, keeping the posts that match, costs what it reads before the page's last match
/// (nothing for a common word, the whole index for a word nobody used); sorting every match
/// read through the GIN index costs what there is to sort (nothing for a rare word, 170 ms for
/// one in six posts of a million). The page statement chooses by the planner's estimate of the
/// matches (`app.planned_rows` of `EstimatedMatches.posts`: a plan, never a scan; the service
/// keeps each term's for a minute, `SearchEstimates`), and no
/// choice runs away when the estimate is wrong, because each way reads a bounded amount and
/// hands over to the next:
///
/// - `few`: fewer than `commonFrom` (`SearchLimits`) matches expected: read the matches through the GIN index,
///   at most `commonFrom` of them. Fewer came back: they are all there is; sort them.
/// - `walked`: otherwise (or when that many came back after all): walk the index in the
///   page's order, keep the matches, stop at the page's last one, and read a bounded number of
///   posts (`walkLimitIn`). The page's matches found: the page.
/// - neither: the matches sit far from the walk's start (a burst of posts without the word, a
///   word popular long ago), or the statistics were wrong. By likes, sort every match (bounded
///   by the matches). By time, find the newest matches hour by hour through the GIN index,
///   which also holds each post's words tagged with its day, and its hour and day
///   (`app.posts_matching_newest`, migrations 0014, 0015 and 0035): an hour or a day without a
///   match costs one lookup, however many posts it holds and wherever they lie in the table,
///   and an hour with many more matches than the page needs is walked newest first.
///
/// Each way is a fenced subquery or a gated branch of one statement (a gate is a one-time
/// filter: the branch it closes is never run), so the plan does not depend on the values:
/// `settings` makes every search statement a generic plan, and turns sequential scans off so
/// that "every match" is always read through the GIN index, never by reading the table.
///
/// **Totals that stop at 1,000.** `total` is exact up to `exactTotals` matches; above that it
/// is marked as an estimate. For posts the count is `few`'s, which read every match when there
/// were fewer than `commonFrom` (the count, then); otherwise the planner's estimate is the
/// total, never less than what `few` read nor than `exactTotals + 1`, and nothing is counted.
/// Users are counted up to `exactTotals + 1` and estimated above. `SearchTotal.seen(on:items:)`
/// makes an estimate exact when the page itself shows where the matches end. Before ANALYZE
/// has seen `search_vector` every post search is estimated at the planner's default (0.5% of
/// the posts): the migration that adds the column analyzes it at once.
package enum SearchQueries {
    /// Totals up to this are counted exactly.
    static let exactTotals = 1_000

    /// The settings every search transaction starts with, applied with its identity.
    /// `statement_timeout` applies to each statement that follows (a pathological search is
    /// cancelled and answers 503 rather than holding its connection); generic plans, because
    /// the shapes decide at run time and planning each search again would cost more than
    /// running it; no sequential scans, because no search shape wants one and a generic plan
    /// must not pick one for a value it cannot see. All three end with the transaction.
    package static func settings(statementTimeout: Duration) -> [PostgresIdentity.Setting] {
        // In whole milliseconds, the setting's unit; a part of one rounds up, so it never reads 0 (off).
        let milliseconds = max(1, Int((statementTimeout / .milliseconds(1)).rounded(.up)))
        return [.init("statement_timeout", String(milliseconds)), .init("plan_cache_mode", "force_generic_plan"),
                .init("enable_seqscan", "off")]
    }

    // MARK: Posts

    /// One page of posts matching `term`, in `order`, and the total (see the type's notes for
    /// the shapes), in one statement: the total comes from what the page's shapes read anyway.
    /// Every row carries the total and the estimate; the page's posts follow them in the same
    /// rows, and a page with no posts is one row whose post columns are null. `search_vector` is
    /// `posts_search_idx`'s first column; the query is parsed once, in `query`, and read by
    /// every step as an InitPlan.
    /// `commonFrom` is `SearchLimits.commonFrom`: the estimate from which a search walks, and
    /// the most matches `few` reads. Never at or below `exactTotals`: a search that did not
    /// count its matches must be one that has more.
    /// `estimate` is the planner's estimate of the term's matches when the service still has
    /// one (`SearchEstimates`); without it the statement asks `app.planned_rows`, and returns the
    /// estimate it used, for the service to keep.
    /// Matches read through the index come from `app.posts_matching` and
    /// `app.posts_matching_newest`, which leave out what a block hides from the viewer: read as
    /// the viewer, the read policy's condition would keep `@@` out of the index (0028).
    package static func posts(
        matching term: SearchTerm, order: PostSearchOrder, page: OffsetPage, commonFrom: Int, estimate: Int? = nil
    ) -> PostgresRead<PostSearchPage> {
        let last = page.offset + page.per
        let commonFrom = max(commonFrom, exactTotals + 1)
        return PostgresRead(PostgresQuery("""
            with query as materialized (
                select websearch_to_tsquery('simple', \(term.text)) as q
            ), estimate as materialized (
                select coalesce(\(estimate)::int8, app.planned_rows(\(EstimatedMatches.posts), array[(select q from query)::text])) as n
            ), few as materialized (
                select m.id, m.created_at, m.like_count from app.posts_matching((select q from query), \(commonFrom)) m
                where (select n from estimate) < \(commonFrom)
            ), few_complete as materialized (
                select (select n from estimate) < \(commonFrom) and (select count(*) from few) < \(commonFrom) as yes
            ), walked as materialized (
                select w.id, w.created_at, w.like_count from (
                    select p.id, p.created_at, p.like_count, p.search_vector from posts p
                    where not (select yes from few_complete)
                    order by \(unescaped: order.sql(of: "p"))
                    limit \(walkLimitIn: order, last: last, commonFrom: commonFrom)
                ) w
                where w.search_vector @@ (select q from query)
                limit \(last)
            ), walked_complete as materialized (
                select (select count(*) from walked) = \(last) as yes
            ), total as materialized (
                select case when (select yes from few_complete) then (select count(*) from few)
                            else greatest((select n from estimate), (select count(*) from few), \(exactTotals + 1)) end as n,
                       not (select yes from few_complete) or (select count(*) from few) > \(exactTotals) as estimated
            )
            select total.n, total.estimated, (select n from estimate), \(unescaped: Post.columns) from total left join ((
                (select f.id, f.created_at, f.like_count from few f
                 where (select yes from few_complete)
                 order by \(unescaped: order.sql(of: "f")) limit \(page.per) offset \(page.offset))
                union all
                (select w.id, w.created_at, w.like_count from walked w
                 where (select yes from walked_complete)
                 order by \(unescaped: order.sql(of: "w")) offset \(page.offset))
                union all
                (select m.id, m.created_at, m.like_count from \(everyMatchIn: order, last: last) m
                 where not (select yes from few_complete) and not (select yes from walked_complete)
                 order by \(unescaped: order.sql(of: "m")) limit \(page.per) offset \(page.offset))
            ) page
            join posts p on p.id = page.id join users a on a.id = p.author_id) on true
            order by \(unescaped: order.sql(of: "page"))
            """)) { result in
            let first = try result.row(0)
            let total = try SearchTotal(row: first)
            let estimate = try first.decode(Int.self, at: 2)
            var posts: [Post] = []
            posts.reserveCapacity(result.rowCount)
            for row in result.rows where try row.decode(PostgresUUID?.self, at: 3) != nil {
                posts.append(try Post(row: row, startingAt: 3))
            }
            return PostSearchPage(posts: posts, total: total, estimate: estimate)
        }
    }

    // MARK: Users

    /// Username prefix matches first, then by similarity, then by username (unique, so the
    /// order is total and pages neither repeat nor skip). Users across a block from the viewer
    /// are left out, as their profiles are (asked per row only when the viewer is in a block).
    static func users(matching term: SearchTerm, page: OffsetPage) -> PostgresRead<[Profile]> {
        PostgresQuery("""
            select \(unescaped: Profile.columns) from users u
            where \(userMatching: term)
            order by (u.username like \(term.usernamePrefixPattern)::text || '%') desc,
                     greatest(similarity(u.username, \(term.text)::text), similarity(u.display_name, \(term.text)::text)) desc,
                     u.username
            limit \(page.per) offset \(page.offset)
            """).rows(Profile.init(row:))
    }

    /// The total for `users(matching:…)`: counted up to `exactTotals + 1`, the estimate above.
    static func userTotal(matching term: SearchTerm) -> PostgresRead<SearchTotal> {
        PostgresQuery("""
            with counted as materialized (
                select count(*) as n from (select from users u where \(userMatching: term) limit \(exactTotals + 1)) s
            )
            select case when n <= \(exactTotals) then n
                        else greatest(app.planned_rows(\(EstimatedMatches.users), array[\(term.text), \(term.usernamePrefixPattern), \(term.likeEscaped)]::text[]), \(exactTotals + 1))
                   end,
                   n > \(exactTotals)
            from counted
            """).onlyRow(SearchTotal.init(row:))
    }
}

extension PostgresQuery.StringInterpolation {
    /// The user condition that the page and the count share: a username that starts with the
    /// term (LIKE, served by `users_username_trgm_idx`), or a username or display name similar
    /// to it (pg_trgm's `%`, served by both trigram indexes), or a display name containing it
    /// (ILIKE, served by `users_display_name_trgm_idx`); and no user across a block from the
    /// viewer. Every value is bound. `EstimatedMatches.users`
    /// is the same condition, for the planner's estimate.
    mutating func appendInterpolation(userMatching term: SearchTerm) {
        appendLiteral("(not app.viewer_in_block() or not app.user_hidden_by_block(u.id)) and (u.username like ")
        appendInterpolation(term.usernamePrefixPattern)
        appendLiteral("::text || '%' or u.username % ")
        appendInterpolation(term.text)
        appendLiteral("::text or u.display_name % ")
        appendInterpolation(term.text)
        appendLiteral("::text or u.display_name ilike '%' || ")
        appendInterpolation(term.likeEscaped)
        appendLiteral("::text || '%')")
    }
}

extension PostgresQuery.StringInterpolation {
    /// The most posts the walk reads in `order` before it gives way to the matches read
    /// otherwise (`last` is the page's last position). By likes, as many as the matches expected
    /// (never fewer than `commonFrom`): past that the matches lie behind posts without the word,
    /// and sorting them costs what the walk would. By time, four times the posts expected to hold
    /// `last` matches (the table's rows over the term's estimated matches, from the statistics),
    /// and never more than 64 posts for each position of the page: spread as the statistics
    /// say, the matches lie within that, so a walk that fails has met a stretch without the word
    /// (a burst of other posts, a word gone out of use), and finding the page by hour then costs a
    /// lookup an hour or a day (migration 0035). The cap is about what finding the page by hour
    /// cost before those lookups (1,280 posts walked took 0.46 ms; by hour, a common word behind
    /// 340,000 newer posts without it took 0.6 ms on the benchmark's data in time order, 5 ms on
    /// a table whose order no longer followed time; see docs/benchmarks/HISTORY.md).
    mutating func appendInterpolation(walkLimitIn order: PostSearchOrder, last: Int, commonFrom: Int) {
        switch order {
        case .recent:
            appendLiteral("least(")
            appendInterpolation(64 * last)
            appendLiteral(", greatest(")
            appendInterpolation(last)
            appendLiteral(", (")
            appendInterpolation(4 * last)
            appendLiteral(" * (select greatest(c.reltuples, 0) from pg_class c where c.oid = 'posts'::regclass)")
            appendLiteral(" / greatest((select n from estimate), 1))::int8))")
        case .top:
            appendLiteral("greatest((select n from estimate), ")
            appendInterpolation(commonFrom)
            appendLiteral(")")
        }
    }

    /// The matches read when neither `few` nor the walk holds the page: a relation with `id`,
    /// `created_at` and `like_count` holding at least the page's matches. By likes, every match,
    /// read through the GIN index (`offset 0` keeps the page's order out of the scan). By time,
    /// the newest `last` or more, found hour by hour (`app.posts_matching_newest`): the posts
    /// between the newest one and the page's matches cost a probe an hour or a day, however
    /// many there are.
    mutating func appendInterpolation(everyMatchIn order: PostSearchOrder, last: Int) {
        switch order {
        case .recent:
            appendLiteral("app.posts_matching_newest((select q from query), ")
            appendInterpolation(last)
            appendLiteral(")")
        case .top:
            appendLiteral("app.posts_matching((select q from query), null)")
        }
    }
}

/// The statements whose row count `app.planned_rows` estimates for a search's total, their
/// values given as `$1[n]` (each on one line: the benchmark passes them to pgbench as values).
enum EstimatedMatches {
    /// Posts matching the tsquery `$1[1]`.
    static let posts = "select from posts where search_vector @@ $1[1]::tsquery"
    /// Users matching the term `$1[1]` as `userMatching` matches them, with `$1[2]` its username
    /// prefix pattern and `$1[3]` its display name pattern.
    static let users = "select from users u where u.username like $1[2] || '%' or u.username % $1[1] "
        + "or u.display_name % $1[1] or u.display_name ilike '%' || $1[3] || '%'"
}

/// `sort=recent` (the default) or `sort=top` for post search; each order is total.
package enum PostSearchOrder {
    case recent
    case top

    init(_ text: String?) throws {
        switch text {
        case nil, "recent": self = .recent
        case "top": self = .top
        default: throw HTTPError.badRequest(code: "invalid_parameter", detail: "sort must be recent or top")
        }
    }

    /// The order's columns on the relation `alias`, which has `created_at`, `like_count` and
    /// `id`. Chosen by the code, never by the client.
    func sql(of alias: String) -> String {
        switch self {
        case .recent: "\(alias).created_at desc, \(alias).id desc"
        case .top: "\(alias).like_count desc, \(alias).id desc"
        }
    }
}

/// A page of post search: its posts, its total, and the planner's estimate of the term's
/// matches that chose its shape.
package struct PostSearchPage {
    package var posts: [Post]
    package var total: SearchTotal
    package var estimate: Int
}
