import Foundation
import HTTP
import Postgres

/// The three post timelines, newest first: everyone's, a signed-in user's home feed (their
/// own posts and those of the people they follow), and one author's.
enum TimelineSource {
    case global
    case home(viewer: PostgresUUID)
    case author(username: String)

    /// Cursors are bound to their list, so one from another list (or another user's home
    /// feed) is refused instead of silently paging the wrong thing.
    var scope: String {
        switch self {
        case .global: "posts"
        case .home(let viewer): "feed:\(viewer.lowercasedString)"
        case .author(let username): "users/\(username)/posts"
        }
    }

    /// Rows strictly between two positions, newest first, `limit` of them. Every variant is
    /// a range scan on a `(created_at desc, id desc)` index, whatever the depth.
    func query(below upper: KeysetPosition, above floor: KeysetPosition, limit: Int) -> PostgresQuery {
        switch self {
        case .global:
            return """
                select \(unescaped: Post.columns) from posts p join users a on a.id = p.author_id
                where (p.created_at, p.id) < (\(upper.timestamp), \(upper.id))
                  and (p.created_at, p.id) > (\(floor.timestamp), \(floor.id))
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
            // One short range scan per followed author, merged: a page costs at most
            // `limit` rows per author however deep it is.
            return """
                select \(unescaped: Post.columns)
                from (select f.followee_id as author_id from follows f where f.follower_id = (select app.user_id())
                      union all select (select app.user_id())) as followed
                cross join lateral (
                    select * from posts p
                    where p.author_id = followed.author_id
                      and (p.created_at, p.id) < (\(upper.timestamp), \(upper.id))
                      and (p.created_at, p.id) > (\(floor.timestamp), \(floor.id))
                    order by p.created_at desc, p.id desc
                    limit \(limit)
                ) as p
                join users a on a.id = p.author_id
                order by p.created_at desc, p.id desc
                limit \(limit)
                """
        }
    }
}

/// `?limit`, `?cursor` (continue downward) or `?since` (what is newer than a head cursor).
struct TimelineRequest {
    var limit: Int
    var cursor: ListCursor?
    var since: KeysetPosition?

    init(_ request: HTTPRequest, source: TimelineSource, cursors: CursorCodec) throws {
        limit = try PageSize.parse(request)
        let cursorText = request.query["cursor"]
        let sinceText = request.query["since"]
        if cursorText != nil && sinceText != nil {
            throw HTTPError.badRequest(code: "invalid_parameter", detail: "use either cursor or since, not both")
        }
        cursor = try cursorText.map { try ListCursor.decode($0, with: cursors, scope: source.scope) }
        since = try sinceText.map { try ListCursor.decode($0, with: cursors, scope: source.scope).position }
    }

    /// The first page only (a profile embeds one).
    init(firstPageOf request: HTTPRequest) throws {
        limit = try PageSize.parse(request)
    }

    var isFirstPage: Bool { cursor == nil && since == nil }

    var upper: KeysetPosition { cursor?.position ?? .top }
    var floor: KeysetPosition? { since ?? cursor?.floor }

    /// Builds the page from `limit + 1` rows.
    func page(_ posts: [Post], source: TimelineSource, cursors: CursorCodec) -> CursorPage<Post> {
        let (items, hasMore) = posts.page(limit: limit)
        let next = hasMore ? items.last.map {
            ListCursor(position: $0.position, floor: floor).encode(with: cursors, scope: source.scope)
        } : nil
        var page = CursorPage(items: items, nextCursor: next, hasMore: hasMore)
        if let since {
            // Newer items than the old head: the new head is the newest of them, or the old
            // head again when nothing is new. More than a page of them leaves a gap, which
            // `nextCursor` fills downward, stopping at the old head.
            let head = items.first?.position ?? since
            page.headCursor = .some(ListCursor(position: head).encode(with: cursors, scope: source.scope))
            page.gap = hasMore
        } else if cursor == nil {
            page.headCursor = .some(items.first.map { ListCursor(position: $0.position).encode(with: cursors, scope: source.scope) })
        } else {
            page.headCursor = .some(nil)
        }
        return page
    }
}

extension ListCursor {
    init(position: KeysetPosition) {
        self.init(position: position, floor: nil)
    }
}
