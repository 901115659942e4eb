import Postgres

/// The SQL of blocks and mutes: always the request's own user's (`app.user_id()`, which the
/// insert and delete policies hold it to).
enum UserRelationQueries {
    /// Idempotent; an unknown username inserts nothing.
    static func set(_ relation: UserRelation, toward username: String) -> PostgresQuery {
        """
        insert into \(unescaped: relation.table) (\(unescaped: relation.owner), \(unescaped: relation.other))
        select (select app.user_id()), u.id from users u where u.username = \(username)
        on conflict do nothing
        """
    }

    /// Idempotent: deletes nothing when there was nothing to lift.
    static func clear(_ relation: UserRelation, toward username: String) -> PostgresQuery {
        """
        delete from \(unescaped: relation.table)
        where \(unescaped: relation.owner) = (select app.user_id())
          and \(unescaped: relation.other) = (select u.id from users u where u.username = \(username))
        """
    }

    /// The viewer's list, newest first: a range scan of the table's `(owner, created_at desc,
    /// other desc)` index stopped at the page, then one probe per listed user (run with
    /// `FollowQueries.listSettings`, for the reason given there).
    static func list(
        _ relation: UserRelation, of viewer: PostgresUUID, after position: KeysetPosition, limit: Int
    ) -> PostgresRead<[ListedUser]> {
        PostgresQuery("""
            select \(unescaped: ListedUser.columns)
            from (select \(unescaped: relation.other) as user_id, created_at from \(unescaped: relation.table)
                  where \(unescaped: relation.owner) = \(viewer)
                    and (created_at, \(unescaped: relation.other)) < (\(position.timestamp), \(position.id))
                  order by created_at desc, \(unescaped: relation.other) desc
                  limit \(limit)) as f
            join users u on u.id = f.user_id
            order by f.created_at desc, f.user_id desc
            """).rows(ListedUser.init(row:))
    }
}
