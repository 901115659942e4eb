import Postgres

/// What the replica probes and read-your-writes ask (see `Replicas` and
/// `sql/migrations/0016_write_marks.sql`).
enum ReplicaQueries {
    /// The primary's current write position, as `16/B374D848`.
    static let primaryPosition = PostgresQuery("select pg_current_wal_lsn()::text").value(String.self)

    /// Whether the server is still a replica, and how far it has replayed.
    static let replayPosition = PostgresQuery(
        "select pg_is_in_recovery(), coalesce(pg_last_wal_replay_lsn()::text, '0/0')"
    ).onlyRow { try $0.decode((Bool, String).self) }

    /// The signed-in user's last writing transaction, if they have written: read on the primary.
    static let writeMark = PostgresQuery(
        "select xid::text from write_marks where user_id = (select app.user_id())"
    ).firstRow { try $0.decode(String.self, at: 0) }

    /// The check a replica transaction starts with: it fails with `SQLState.replicaBehind`
    /// unless the replica has replayed transaction `mark`.
    static func requiringVisible(_ mark: String) -> PostgresIdentity.Check {
        PostgresIdentity.Check(function: "app.require_visible", argument: mark)
    }
}
