import Foundation
import Postgres

/// A comment as the API shows it: top-level when `parentId` is null, otherwise a reply to
/// a top-level comment of the same post.
package struct Comment: KeysetListItem {
    var id: PostgresUUID
    var postId: PostgresUUID
    var parentId: PostgresUUID?
    var author: Author
    var body: PostgresText
    var createdAt: PostgresTimestamp
    var replyCount: Int
    /// When its author last changed the body; nil when never.
    var editedAt: PostgresTimestamp?

    /// Where this comment sits in its thread: `(created_at, id)`, oldest first.
    var position: KeysetPosition { KeysetPosition(timestamp: createdAt, id: id) }

    /// The columns `init(row:)` reads, for a `comments` row aliased `c` joined to its author `a`.
    static let columns = """
        c.id, c.post_id, c.parent_id, c.body, c.created_at, c.reply_count, a.id, a.username, a.display_name, c.edited_at
        """

    init(row: PostgresRow) throws {
        try self.init(row: row, startingAt: 0)
    }

    /// Reads `columns`, which start at column `first` of the row.
    init(row: PostgresRow, startingAt first: Int) throws {
        let (id, postId, parentId, body, createdAt, replyCount, authorID, username, displayName, editedAt) = try row.decode(
            (PostgresUUID, PostgresUUID, PostgresUUID?, PostgresText, PostgresTimestamp, Int, PostgresUUID, PostgresText, PostgresText,
             PostgresTimestamp?).self, startingAt: first)
        self.id = id
        self.postId = postId
        self.parentId = parentId
        self.body = body
        self.createdAt = createdAt
        self.replyCount = replyCount
        self.editedAt = editedAt
        author = Author(id: authorID, username: username, displayName: displayName)
    }

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("id"); json.uuid(id)
        json.key("postId"); json.uuid(postId)
        json.key("parentId"); json.optionalUUID(parentId)
        json.key("author"); author.write(to: &json)
        json.key("body"); json.string(body)
        json.key("createdAt"); json.timestamp(createdAt)
        json.key("replyCount"); json.int(replyCount)
        json.key("editedAt"); json.optionalTimestamp(editedAt)
        json.endObject()
    }
}
