import HTTP
import Postgres

/// The SQL of search. Each search is two statements pipelined in one read-only transaction:
/// the page, and `total` from a count over the same condition.
///
/// `total` saturates at `countCap` (10,000): the count reads at most that many matches, so a
/// very common word costs a bounded count. A client shown 10,000 should read it as "10,000
/// or more"; `OffsetPage` never lets it page deeper than that anyway.
package enum SearchQueries {
    static let countCap = 10_000

    // MARK: Posts

    /// Full text. The condition repeats the expression of `posts_body_fts_idx` exactly
    /// (`to_tsvector('simple', body)`), or the index would not serve it.
    package static func posts(matching term: SearchTerm, order: PostSearchOrder, page: OffsetPage) -> PostgresRead<[Post]> {
        PostgresQuery("""
            select \(unescaped: Post.columns) from posts p join users a on a.id = p.author_id
            where to_tsvector('simple', p.body) @@ websearch_to_tsquery('simple', \(term.text))
            order by \(unescaped: order.sql)
            limit \(page.per) offset \(page.offset)
            """).rows(Post.init(row:))
    }

    package static func postCount(matching term: SearchTerm) -> PostgresRead<Int> {
        PostgresQuery("""
            select count(*) from (
                select 1 from posts p
                where to_tsvector('simple', p.body) @@ websearch_to_tsquery('simple', \(term.text))
                limit \(countCap)
            ) s
            """).value(Int.self)
    }

    // MARK: Users

    /// Username prefix matches first, then by similarity, then by username (unique, so the
    /// order is total and pages neither repeat nor skip).
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

    static func userCount(matching term: SearchTerm) -> PostgresRead<Int> {
        PostgresQuery("select count(*) from (select 1 from users u where \(userMatching: term) limit \(countCap)) s")
            .value(Int.self)
    }
}

extension PostgresQuery.StringInterpolation {
    /// The user condition that the page and the count share: a username that starts with the
    /// term (LIKE, served by `users_username_trgm_idx`), or a username or display name similar
    /// to it (pg_trgm's `%`, served by both trigram indexes), or a display name containing it
    /// (ILIKE, served by `users_display_name_trgm_idx`). Every value is bound.
    mutating func appendInterpolation(userMatching term: SearchTerm) {
        appendLiteral("(u.username like ")
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

    /// Chosen by the code, never by the client.
    var sql: String {
        switch self {
        case .recent: "p.created_at desc, p.id desc"
        case .top: "p.like_count desc, p.id desc"
        }
    }
}
