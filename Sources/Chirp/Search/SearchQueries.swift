import HTTP
import Postgres

/// The SQL of search. Each search is two statements pipelined in one read-only transaction:
/// the page, and `total` from a count over the same condition.
///
/// `total` saturates at `countCap` (10,000): the count reads at most that many matches, so a
/// very common word costs a bounded count. A client shown 10,000 should read it as "10,000
/// or more"; `OffsetPage` never lets it page deeper than that anyway.
enum SearchQueries {
    static let countCap = 10_000

    // MARK: Posts

    /// Full text. The condition repeats the expression of `posts_body_fts_idx` exactly
    /// (`to_tsvector('simple', body)`), or the index would not serve it.
    static func posts(matching term: SearchTerm, order: PostSearchOrder, page: OffsetPage) -> PostgresQuery {
        """
        select \(unescaped: Post.columns) from posts p join users a on a.id = p.author_id
        where to_tsvector('simple', p.body) @@ websearch_to_tsquery('simple', \(term.text))
        order by \(unescaped: order.sql)
        limit \(page.per) offset \(page.offset)
        """
    }

    static func postCount(matching term: SearchTerm) -> PostgresQuery {
        """
        select count(*) from (
            select 1 from posts p
            where to_tsvector('simple', p.body) @@ websearch_to_tsquery('simple', \(term.text))
            limit \(countCap)
        ) s
        """
    }

    // MARK: Users

    /// The user condition, shared by the page and the count, so its parameters are numbered
    /// by hand: `$1` the term, `$2` the username prefix pattern, `$3` the term with LIKE
    /// wildcards escaped. A username that starts with the term (LIKE, served by
    /// `users_username_trgm_idx`), or a username or display name similar to it (pg_trgm's
    /// `%`, served by both trigram indexes), or a display name containing it (ILIKE, served
    /// by `users_display_name_trgm_idx`).
    private static let userMatch = """
        (u.username like $2::text || '%'
         or u.username % $1::text
         or u.display_name % $1::text
         or u.display_name ilike '%' || $3::text || '%')
        """

    private static func userBindings(_ term: SearchTerm) -> [String?] {
        [term.text, term.usernamePrefixPattern, term.likeEscaped]
    }

    /// Username prefix matches first, then by similarity, then by username (unique, so the
    /// order is total and pages neither repeat nor skip).
    static func users(matching term: SearchTerm, page: OffsetPage) -> PostgresQuery {
        PostgresQuery(
            sql: """
                select \(Profile.columns) from users u
                where \(userMatch)
                order by (u.username like $2::text || '%') desc,
                         greatest(similarity(u.username, $1::text), similarity(u.display_name, $1::text)) desc,
                         u.username
                limit $4 offset $5
                """,
            bindings: userBindings(term) + [page.per.postgresText, page.offset.postgresText])
    }

    static func userCount(matching term: SearchTerm) -> PostgresQuery {
        PostgresQuery(
            sql: "select count(*) from (select 1 from users u where \(userMatch) limit $4) s",
            bindings: userBindings(term) + [countCap.postgresText])
    }
}

/// `sort=recent` (the default) or `sort=top` for post search; each order is total.
enum PostSearchOrder {
    case recent
    case top

    init(_ text: String?) throws {
        switch text {
        case nil, "recent": self = .recent
        case "top": self = .top
        default: throw HTTPError.badRequest(code: "invalid_parameter", detail: "sort must be recent or top")
        }
    }

    /// Chosen by the code, never by the client.
    var sql: String {
        switch self {
        case .recent: "p.created_at desc, p.id desc"
        case .top: "p.like_count desc, p.id desc"
        }
    }
}
