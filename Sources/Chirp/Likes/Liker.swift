import Foundation
import Postgres

/// A user who liked a post, as the likers list shows them.
struct Liker: KeysetListItem {
    var id: PostgresUUID
    var username: String
    var displayName: String
    var likedAt: PostgresTimestamp

    /// Where this like sits in the list: `(likes.created_at, likes.user_id)`.
    var position: KeysetPosition { KeysetPosition(timestamp: likedAt, id: id) }

    /// The columns `init(row:)` reads, for a `likes` row `l` joined to its user `u`.
    static let columns = "u.id, u.username, u.display_name, l.created_at"

    init(row: PostgresRow) throws {
        (id, username, displayName, likedAt) = try row.decode((PostgresUUID, String, String, PostgresTimestamp).self)
    }

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("id"); json.uuid(id)
        json.key("username"); json.string(username)
        json.key("displayName"); json.string(displayName)
        json.key("likedAt"); json.timestamp(likedAt)
        json.endObject()
    }
}

/// The answer to a like or unlike: the viewer's state and the count after the write.
struct LikeStatus: JSONWritable {
    var postId: PostgresUUID
    var liked: Bool
    var likeCount: Int

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("postId"); json.uuid(postId)
        json.key("liked"); json.bool(liked)
        json.key("likeCount"); json.int(likeCount)
        json.endObject()
    }
}
