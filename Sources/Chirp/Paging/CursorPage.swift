/// One page of a cursor list: `{items, nextCursor, hasMore}`, plus `headCursor` and `gap`
/// on feeds.
struct CursorPage<Item: JSONWritable>: JSONWritable {
    /// A slice of the fetched rows, so that dropping the one past the page copies nothing.
    var items: ArraySlice<Item>
    var nextCursor: String?
    var hasMore: Bool
    var headCursor: String?? = .none
    var gap: Bool? = nil

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("items"); json.array(items)
        json.key("nextCursor"); json.optionalString(nextCursor)
        json.key("hasMore"); json.bool(hasMore)
        if case .some(let head) = headCursor {
            json.key("headCursor"); json.optionalString(head)
        }
        if let gap {
            json.key("gap"); json.bool(gap)
        }
        json.endObject()
    }
}
