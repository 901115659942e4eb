import Postgres

/// A user in a followers or following list: their profile as the API shows it, and when the
/// follow began, which orders the list but is not shown.
package struct FollowListItem: KeysetListItem {
    var profile: Profile
    var followedAt: PostgresTimestamp

    /// Where this follow sits in the list: `(follows.created_at, the listed user's id)`.
    var position: KeysetPosition { KeysetPosition(timestamp: followedAt, id: profile.id) }

    /// The columns `init(row:)` reads: the listed user `u`'s, then its follow `f`'s time.
    static let columns = Profile.columns + ", f.created_at"

    init(row: PostgresRow) throws {
        profile = try Profile(row: row)
        followedAt = try row.decode(PostgresTimestamp.self, at: 8)
    }

    func write(to json: inout JSONWriter) {
        profile.write(to: &json)
    }
}
