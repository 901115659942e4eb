import Postgres

/// The SQL of profiles: a user as `Profile` shows them, with `followedByMe` for the viewer.
package enum ProfileQueries {
    package static func profile(username: String) -> PostgresRead<Profile?> {
        PostgresQuery("select \(unescaped: Profile.columns) from users u where u.username = \(username)")
            .firstRow(Profile.init(row:))
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

    package static func exists(username: String) -> PostgresRead<Bool> {
        PostgresQuery("select exists (select from users where username = \(username))").value(Bool.self)
    }
}
