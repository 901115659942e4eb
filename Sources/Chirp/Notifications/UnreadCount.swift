/// `{count}`: how many notifications the viewer has not read, exact up to
/// `NotificationQueries.unreadCountCap`; at the cap, `countIsCapped: true` says there may be
/// more (a badge shows "99+").
struct UnreadCount: JSONWritable {
    var count: Int

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("count"); json.int(count)
        if count >= NotificationQueries.unreadCountCap { json.key("countIsCapped"); json.bool(true) }
        json.endObject()
    }
}
