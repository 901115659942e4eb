import HTTP
import Postgres

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

    /// The page's statement: `limit + 1` posts, to know whether more exist.
    func statement(for source: TimelineSource) -> PostgresRead<[Post]> {
        TimelineQueries.page(of: source, below: upper, above: floor ?? .bottom, limit: limit + 1)
    }

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
