/// What one user sets toward another, which only they change: a block (`blocks`, enforced by
/// the database both ways, `sql/migrations/0028_blocks_and_mutes.sql`) or a mute (`mutes`,
/// private to the muter, filtered by the home feed, the global timeline and explore).
struct UserRelation: Sendable {
    /// The table, whose relation each row is (`owner`) and toward whom (`other`). Constants,
    /// spliced into SQL.
    let table: String
    let owner: String
    let other: String
    /// The answer's flag (`{username, blocked}`) and the list's name (`/v1/me/blocks`).
    let flag: StaticString
    let list: String
    let verb: String

    static let block = UserRelation(table: "blocks", owner: "blocker_id", other: "blocked_id", flag: "blocked", list: "blocks", verb: "block")
    static let mute = UserRelation(table: "mutes", owner: "muter_id", other: "muted_id", flag: "muted", list: "mutes", verb: "mute")

    /// The check constraint that keeps a user from naming themselves.
    var notSelf: String { "\(table)_not_self" }
    var ownerForeignKey: String { "\(table)_\(owner)_fkey" }
}

/// The answer to a block, unblock, mute or unmute: `{username, blocked}` or `{username, muted}`.
struct UserRelationStatus: JSONWritable {
    var username: String
    var flag: StaticString
    var isSet: Bool

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("username"); json.string(username)
        json.key(flag); json.bool(isSet)
        json.endObject()
    }
}
