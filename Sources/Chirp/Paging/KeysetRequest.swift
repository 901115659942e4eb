import HTTP

/// `?limit` and `?cursor` of a keyset list that pages one way only (likers, comments,
/// replies). The page fetches `limit + 1` rows past the cursor's position, so `hasMore` is
/// exact, and its cursor is bound to the list's scope, so a cursor from another list is a
/// 400 `invalid_cursor`.
struct KeysetRequest {
    var limit: Int
    /// Where the previous page ended; nil on the first page.
    var after: KeysetPosition?
    let scope: String

    init(_ request: HTTPRequest, scope: String, cursors: CursorCodec) throws {
        limit = try PageSize.parse(request)
        self.scope = scope
        after = try request.query["cursor"].map { try Self.position(of: $0, scope: scope, cursors: cursors) }
    }

    /// The position a cursor of a one-way list names. These lists never issue a cursor with a
    /// floor: one that has it was not made here.
    static func position(of text: String, scope: String, cursors: CursorCodec) throws -> KeysetPosition {
        let cursor = try ListCursor.decode(text, with: cursors, scope: scope)
        guard cursor.floor == nil else { throw CursorCodec.invalid }
        return cursor.position
    }

    /// Rows to fetch: one more than the page, to know whether more exist.
    var fetchLimit: Int { limit + 1 }

    /// The page from `fetchLimit` rows.
    func page<Item: KeysetListItem>(_ rows: [Item], cursors: CursorCodec) -> CursorPage<Item> {
        let (items, hasMore) = rows.page(limit: limit)
        let next = hasMore
            ? items.last.map { ListCursor(position: $0.position, floor: nil).encode(with: cursors, scope: scope) }
            : nil
        return CursorPage(items: items, nextCursor: next, hasMore: hasMore)
    }
}
