import Postgres

/// A user in a list of follows, blocks or mutes: their profile as the API shows it, and when
/// they were listed (the follow, block or mute began), which orders the list but is not shown.
package struct ListedUser: KeysetListItem {
    var profile: Profile
    var listedAt: PostgresTimestamp

    /// Where this user sits in the list: `(created_at, the listed user's id)`.
    var position: KeysetPosition { KeysetPosition(timestamp: listedAt, id: profile.id) }

    /// The columns `init(row:)` reads: the listed user `u`'s, then the listing row `f`'s time.
    static let columns = Profile.columns + ", f.created_at"

    init(row: PostgresRow) throws {
        profile = try Profile(row: row)
        listedAt = try row.decode(PostgresTimestamp.self, at: 8)
    }

    func write(to json: inout JSONWriter) {
        profile.write(to: &json)
    }
}
