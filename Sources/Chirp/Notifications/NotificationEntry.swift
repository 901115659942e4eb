import Postgres

/// A notification as the API shows it: what happened (`kind`), who did it (the latest
/// `actors`, at most three, and how many in all), to what (`post`, `comment`), when the
/// newest of them acted, and whether the recipient has read it.
package struct NotificationEntry: KeysetListItem {
    var id: PostgresUUID
    var kind: PostgresText
    var latestAt: PostgresTimestamp
    var actorCount: Int
    var read: Bool
    var actors: [Profile]
    var post: Post?
    var comment: Comment?

    /// Where it sits in the recipient's list: `(latest_at, id)`, newest first.
    var position: KeysetPosition { KeysetPosition(timestamp: latestAt, id: id) }

    /// The most actors an entry shows.
    static let shownActors = 3

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("id"); json.uuid(id)
        json.key("kind"); json.string(kind)
        json.key("actors"); json.array(actors)
        json.key("actorCount"); json.int(actorCount)
        json.key("post")
        if let post { post.write(to: &json) } else { json.null() }
        json.key("comment")
        if let comment { comment.write(to: &json) } else { json.null() }
        json.key("createdAt"); json.timestamp(latestAt)
        json.key("read"); json.bool(read)
        json.endObject()
    }
}

extension NotificationEntry {
    /// The columns `NotificationQueries.page` selects, in order: the notification's five, then
    /// one actor's `Profile.columns` and when they acted (null when it has no actor left),
    /// then its post's `Post.columns` and its comment's `Comment.columns` (null when it has
    /// none).
    private enum Column {
        static let actor = 5
        static let post = actor + 8 + 1
        static let comment = post + 10
    }

    /// One entry per notification from rows of one notification and one of its actors each,
    /// in the list's order with a notification's actors together, newest first.
    static func entries(from result: PostgresResult) throws -> [NotificationEntry] {
        var entries: [NotificationEntry] = []
        for row in result.rows {
            let id = try row.decode(PostgresUUID.self, at: 0)
            if entries.last?.id != id {
                let (kind, latestAt, actorCount, read) = try row.decode((PostgresText, PostgresTimestamp, Int, Bool).self, startingAt: 1)
                let post = try row.decode(PostgresUUID?.self, at: Column.post) == nil ? nil : try Post(row: row, startingAt: Column.post)
                let comment = try row.decode(PostgresUUID?.self, at: Column.comment) == nil
                    ? nil : try Comment(row: row, startingAt: Column.comment)
                entries.append(NotificationEntry(
                    id: id, kind: kind, latestAt: latestAt, actorCount: actorCount, read: read, actors: [], post: post, comment: comment))
            }
            if try row.decode(PostgresUUID?.self, at: Column.actor) != nil {
                entries[entries.count - 1].actors.append(try Profile(row: row, startingAt: Column.actor))
            }
        }
        return entries
    }
}
