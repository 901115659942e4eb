import Postgres

/// A user and their stored password hash, as a login reads them.
struct Account {
    var profile: Profile
    var passwordHash: String

    /// Reads `Profile.columns` followed by a `password_hash` column.
    init(row: PostgresRow) throws {
        profile = try Profile(row: row)
        passwordHash = try row.decode(String.self, "password_hash")
    }
}
