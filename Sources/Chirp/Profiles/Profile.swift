import Foundation
import Postgres

/// A user as the API shows them.
package struct Profile: JSONWritable {
    var id: PostgresUUID
    var username: PostgresText
    var displayName: PostgresText
    var bio: PostgresText
    var followerCount: Int
    var followingCount: Int
    var postCount: Int
    var followedByMe: Bool

    /// The columns `init(row:)` reads, for a `users` row aliased `u`. `followedByMe` is
    /// the viewer's follow, false when anonymous: like `Post.likedByMe`, a scalar subquery,
    /// one probe of a `follows` key per returned row however many users the viewer follows.
    static let columns = """
        u.id, u.username, u.display_name, u.bio, u.follower_count, u.following_count, u.post_count,
        coalesce((select true from follows f where f.follower_id = (select app.user_id()) and f.followee_id = u.id), false)
        """

    init(row: PostgresRow) throws {
        try self.init(row: row, startingAt: 0)
    }

    /// Reads `columns`, which start at column `first` of the row.
    init(row: PostgresRow, startingAt first: Int) throws {
        (id, username, displayName, bio, followerCount, followingCount, postCount, followedByMe) = try row.decode(
            (PostgresUUID, PostgresText, PostgresText, PostgresText, Int, Int, Int, Bool).self, startingAt: first)
    }

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("id"); json.uuid(id)
        json.key("username"); json.string(username)
        json.key("displayName"); json.string(displayName)
        json.key("bio"); json.string(bio)
        json.key("followerCount"); json.int(followerCount)
        json.key("followingCount"); json.int(followingCount)
        json.key("postCount"); json.int(postCount)
        json.key("followedByMe"); json.bool(followedByMe)
        json.endObject()
    }
}
