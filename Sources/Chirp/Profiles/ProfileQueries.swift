import Postgres

/// The SQL of profiles: a user as `Profile` shows them, with `followedByMe` for the viewer.
package enum ProfileQueries {
    /// Nil when there is no such user, or a block between them and the viewer hides them
    /// (each one's profile answers 404 to the other).
    package static func profile(username: String) -> PostgresRead<Profile?> {
        PostgresQuery("""
            select \(unescaped: Profile.columns) from users u
            where u.username = \(username) and not (app.viewer_in_block() and app.user_hidden_by_block(u.id))
            """).firstRow(Profile.init(row:))
    }

    static func profile(of userID: PostgresUUID) -> PostgresRead<Profile?> {
        PostgresQuery("select \(unescaped: Profile.columns) from users u where u.id = \(userID)")
            .firstRow(Profile.init(row:))
    }

    /// The viewer's own profile, each field changed only when given; no row when the viewer's
    /// account is gone.
    static func update(displayName: String?, bio: String?) -> PostgresRead<Profile?> {
        PostgresQuery("""
            update users u set display_name = coalesce(\(displayName), u.display_name), bio = coalesce(\(bio), u.bio)
            where u.id = (select app.user_id())
            returning \(unescaped: Profile.columns)
            """).firstRow(Profile.init(row:))
    }

    /// Whether the user exists and no block hides them from the viewer, as for `profile`.
    package static func exists(username: String) -> PostgresRead<Bool> {
        PostgresQuery("select exists (select from users u where u.username = \(username) and not (app.viewer_in_block() and app.user_hidden_by_block(u.id)))")
            .value(Bool.self)
    }
}
