import Chirp
import Foundation
import HTTP
import Postgres

/// pgbench scripts that run exactly the statements an endpoint runs (built by the same query
/// builders, with the same identity setup, pipelined the same way), so the benchmark can
/// report each endpoint against the database's own ceiling for that work.
///
/// Values that vary per request become pgbench expressions over the seeded data's naming
/// scheme (`SeedGenerator`): a user is `md5(:user_prefix || :uid)::uuid`, a post
/// `md5(:post_prefix || :post)::uuid`, a username `'demo' || :author` (authors are drawn from
/// other users than viewers, so nobody follows themselves), a viewer's session
/// `md5(:session_prefix || :uid)::uuid` (`viewerSessions` starts them). Every other value
/// stays a bound parameter, passed with `-D`.
struct CeilingScript: Sendable {
    var name: String
    /// The script, for `pgbench -f`.
    var text: String
    /// `-D name=value` definitions of the constant parameters.
    var definitions: [(String, String)]
}

enum CeilingScripts {
    /// Placeholders the builders are called with, replaced by pgbench expressions.
    static let viewer = PostgresUUID(high: 0x0000_0000_0000_4000, low: 0x8000_0000_0000_beef)
    static let session = PostgresUUID(high: 0x0000_0000_0000_4000, low: 0x8000_0000_5e55_1011)
    /// The id a create chooses for its new row: a fresh one in every transaction.
    static let newRow = PostgresUUID(high: 0x0000_0000_0000_4000, low: 0x8000_0000_0000_0e70)
    static let post = PostgresUUID(high: 0x0000_0000_0000_4000, low: 0x8000_0000_000b_0b0b)
    static let username = "bench_author"

    /// - Parameters:
    ///   - seed: the seed the database was made with.
    ///   - deepPosition: where the deep-page workload starts (a position 10,000 posts down).
    ///   - search: the service's search settings (its defaults unless a test says otherwise).
    ///   - searchEstimate: the planner's estimate of the searched word's matches, which the
    ///     service passes once it has it (`SearchEstimates`); nil runs the search as its first
    ///     request runs, asking `app.planned_rows`.
    static func all(
        seed: Int, deepPosition: KeysetPosition, search: SearchLimits = SearchLimits(), searchEstimate: Int? = nil
    ) throws -> [CeilingScript] {
        let searchRequest = HTTPRequest(method: .GET, path: "/v1/search/posts", query: ["q": "swift"])
        // As the service runs a signed-in request: its session required live first.
        let signedIn = PostgresIdentity.user(Viewer(id: viewer, session: session))
        let anonymous = PostgresIdentity.anonymous
        let limit = PageSize.defaultSize + 1
        func firstPage(_ source: TimelineSource) -> PostgresQuery {
            TimelineQueries.page(of: source, below: .top, above: .bottom, limit: limit).query
        }
        let author = TimelineSource.author(username: username)
        let explore = ExploreQueries.firstPage(limit: limit, signedIn: false)
        var scripts: [CeilingScript] = [
            render("feed", seed: seed, [(signedIn.adding(TimelineQueries.homeSettings), true, [firstPage(.home(viewer: viewer))])]),
            render("feed_deep", seed: seed, [(anonymous, true, [
                TimelineQueries.page(of: .global(viewer: nil), below: deepPosition, above: .bottom, limit: limit).query,
            ])]),
            // Not an endpoint: OFFSET paging at the deep page's depth, for contrast.
            render("offset_deep", seed: seed, [(anonymous, true, [
                """
                select \(unescaped: Post.columns) from posts p join users a on a.id = p.author_id
                order by p.created_at desc, p.id desc offset \(10_000) limit \(limit)
                """,
            ])]),
            render("global", seed: seed, [(anonymous, true, [firstPage(.global(viewer: nil))])]),
            render("user_posts", seed: seed, [(anonymous, true, [
                firstPage(author), ProfileQueries.exists(username: username).query,
            ])]),
            render("explore", seed: seed, [(anonymous, false, [explore.snapshotExists.query, explore.posts.query])]),
            render("followers", seed: seed, [(anonymous.adding(FollowQueries.listSettings), true, [
                FollowQueries.followers(of: username, after: .top, limit: limit).query, FollowQueries.userExists(username).query,
            ])]),
            render("comments", seed: seed, [(anonymous, true, [
                CommentQueries.thread(of: post, after: .bottom, limit: limit).query, PostQueries.exists(post).query,
            ])]),
            // The profile's two reads, in the order the service sends them (it runs them at once
            // on two connections).
            render("profile", seed: seed, [
                (anonymous, true, [firstPage(author)]),
                (anonymous, true, [ProfileQueries.profile(username: username).query]),
            ]),
            render("notifications", seed: seed, [(signedIn, true, [
                NotificationQueries.page(of: viewer, below: .top, limit: limit).query,
            ])]),
            render("unread_count", seed: seed, [(signedIn, true, [NotificationQueries.unreadCount(of: viewer).query])]),
            render("search", seed: seed, [(anonymous.adding(SearchQueries.settings(statementTimeout: search.statementTimeout)), true, [
                SearchQueries.posts(
                    matching: try SearchTerm(searchRequest), order: .recent, page: try OffsetPage(searchRequest),
                    commonFrom: search.commonFrom, estimate: searchEstimate).query,
            ])]),
            render("like", seed: seed, [(signedIn, false, [LikeQueries.like(post, by: viewer), LikeQueries.likeCount(of: post).query])]),
            render("unlike", seed: seed, [(signedIn, false, [LikeQueries.unlike(post, by: viewer), LikeQueries.likeCount(of: post).query])]),
            render("follow", seed: seed, [(signedIn, false, [FollowQueries.follow(username), FollowQueries.followerCount(of: username).query])]),
            render("unfollow", seed: seed, [(signedIn, false, [FollowQueries.unfollow(username), FollowQueries.followerCount(of: username).query])]),
        ]
        // Creates run their insert with BEGIN and the identity, then COMMIT on its own.
        scripts.append(render("post", seed: seed, [(signedIn, false, [
            PostQueries.create(newRow, by: viewer, body: "Benchmarking the write path").query,
        ])], commitApart: true))
        scripts.append(render("comment", seed: seed, [(signedIn, false, [
            CommentQueries.create(newRow, on: post, parent: nil, by: viewer, body: "Benchmarking the comment path").query,
        ])], commitApart: true))
        return scripts
    }

    /// One pgbench transaction per `(identity, readOnly, statements)`, each a pipeline.
    static func render(
        _ name: String, seed: Int, _ transactions: [(PostgresIdentity, Bool, [PostgresQuery])], commitApart: Bool = false
    ) -> CeilingScript {
        // The seed's naming scheme, as parameters: a quoted ':' would read as a variable.
        var definitions = [("user_prefix", "user:\(seed):"), ("post_prefix", "post:\(seed):"), ("session_prefix", "session:\(seed):")]
        // Who and what each transaction is about, drawn like the HTTP load draws them.
        var lines = [
            "\\set uid random(1, :bench_users)",
            "\\set author random(:bench_users + 1, 2 * :bench_users)",
            "\\set post random(1, :bench_posts)",
        ]
        func statement(_ query: PostgresQuery, identity: Bool) -> String {
            var sql = query.sql
            for (index, binding) in query.bindings.enumerated().reversed() {
                let placeholder = "$\(index + 1)"
                let replacement: String
                switch binding {
                case viewer.postgresText?: replacement = "md5(:user_prefix || :uid)::uuid" + (identity ? "::text" : "")
                case session.postgresText?: replacement = "md5(:session_prefix || :uid)::uuid"
                case newRow.postgresText?: replacement = "gen_random_uuid()"
                case post.postgresText?: replacement = "md5(:post_prefix || :post)::uuid"
                case username?: replacement = "('demo' || :author)"
                case nil: replacement = "null"
                default:
                    let variable = "c\(definitions.count + 1)"
                    definitions.append((variable, binding ?? "null"))
                    replacement = ":\(variable)"
                }
                sql = sql.replacingOccurrences(of: placeholder, with: replacement, options: [], range: sql.range(of: placeholder, options: .backwards))
            }
            // pgbench ends a command at the line's end: one line per statement.
            return sql.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ") + ";"
        }
        for (identity, readOnly, queries) in transactions {
            // The very statements `PostgresPool.execute` sends; the identity follows `BEGIN`, and a
            // write's transaction id.
            let statements = PostgresPool.transactionStatements(queries, as: identity, readOnly: readOnly)
            let identityIndex = readOnly ? 1 : 2
            let rendered = statements.enumerated().map { statement($1, identity: $0 == identityIndex) }
            lines.append("\\startpipeline")
            if commitApart {
                // `withTransaction`: the body's round trip, then `COMMIT` on its own (the service
                // reads the transaction's id with its commit; here it travels with `BEGIN`).
                lines += rendered.dropLast()
                lines.append("\\endpipeline")
                lines += rendered.suffix(1)
            } else {
                lines += rendered
                lines.append("\\endpipeline")
            }
        }
        return CeilingScript(name: name, text: lines.joined(separator: "\n") + "\n", definitions: definitions)
    }

    /// A live session for each of the `:bench_users` viewers, named as the scripts name it: run
    /// once, as a superuser, before the signed-in ceilings (a session that has ended fails them,
    /// as it fails the service's requests). Running it again makes the same sessions live again.
    static func viewerSessions(seed: Int) -> CeilingScript {
        let text = """
            insert into refresh_tokens (user_id, family_id, token_hash, expires_at) \
            select md5(:user_prefix || i)::uuid, md5(:session_prefix || i)::uuid, sha256(convert_to(:session_prefix || i, 'UTF8')), \
            now() + interval '30 days' from generate_series(1, :bench_users) i \
            on conflict (token_hash) do update set expires_at = excluded.expires_at, used_at = null, revoked_at = null;

            """
        return CeilingScript(
            name: "viewer_sessions", text: text,
            definitions: [("user_prefix", "user:\(seed):"), ("session_prefix", "session:\(seed):")])
    }
}
