import Foundation
import Postgres

/// The author of a post or comment, as lists show them.
struct Author: JSONWritable {
    var id: PostgresUUID
    var username: PostgresText
    var displayName: PostgresText

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("id"); json.uuid(id)
        json.key("username"); json.string(username)
        json.key("displayName"); json.string(displayName)
        json.endObject()
    }
}

/// A post as the API shows it.
package struct Post: JSONWritable {
    var id: PostgresUUID
    var author: Author
    var body: PostgresText
    var createdAt: PostgresTimestamp
    var likeCount: Int
    var commentCount: Int
    var likedByMe: Bool
    /// When its author last changed the body; nil when never.
    var editedAt: PostgresTimestamp?

    var position: KeysetPosition { KeysetPosition(timestamp: createdAt, id: id) }

    /// The columns `init(row:)` reads, for a `posts` row aliased `p` joined to its author `a`.
    /// `likedByMe` is the viewer's like, false when anonymous: a scalar subquery, so it costs
    /// one probe of `likes_pkey` per returned row. Written as `exists` (with or without
    /// `limit 1`), PostgreSQL may plan it as a hashed subplan that first reads every like the
    /// viewer ever gave, on every page (see `sql/tests/80_keyset_plans.sql`).
    package static let columns = """
        p.id, p.body, p.created_at, p.like_count, p.comment_count, a.id, a.username, a.display_name,
        coalesce((select true from likes l where l.user_id = (select app.user_id()) and l.post_id = p.id), false),
        p.edited_at
        """

    init(row: PostgresRow) throws {
        try self.init(row: row, startingAt: 0)
    }

    /// Reads `columns`, which start at column `first` of the row.
    init(row: PostgresRow, startingAt first: Int) throws {
        let (id, body, createdAt, likeCount, commentCount, authorID, username, displayName, likedByMe, editedAt) = try row.decode(
            (PostgresUUID, PostgresText, PostgresTimestamp, Int, Int, PostgresUUID, PostgresText, PostgresText, Bool, PostgresTimestamp?).self,
            startingAt: first)
        self.id = id
        self.body = body
        self.createdAt = createdAt
        self.likeCount = likeCount
        self.commentCount = commentCount
        self.likedByMe = likedByMe
        self.editedAt = editedAt
        author = Author(id: authorID, username: username, displayName: displayName)
    }

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("id"); json.uuid(id)
        json.key("author"); author.write(to: &json)
        json.key("body"); json.string(body)
        json.key("createdAt"); json.timestamp(createdAt)
        json.key("likeCount"); json.int(likeCount)
        json.key("commentCount"); json.int(commentCount)
        json.key("likedByMe"); json.bool(likedByMe)
        json.key("editedAt"); json.optionalTimestamp(editedAt)
        json.endObject()
    }
}
