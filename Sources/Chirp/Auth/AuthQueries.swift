import Foundation
import Postgres

/// The statements behind sign-up, login and token rotation, run as `chirp_signin` on the auth login.
enum AuthQueries {
    /// The new user, with their credentials and a first session.
    static func signUp(
        _ id: PostgresUUID, username: String, displayName: String, passwordHash: String, session: PostgresUUID, refreshHash: [UInt8]
    ) -> PostgresRead<Profile> {
        PostgresQuery("""
        with u as (
            insert into users (id, username, display_name) values (\(id), \(username), \(displayName))
            returning *
        ), credential as (
            insert into credentials (user_id, password_hash) select id, \(passwordHash)::text from u
        ), token as (
            insert into refresh_tokens (user_id, family_id, token_hash, expires_at)
            select id, \(session)::uuid, \(PostgresBytes(refreshHash))::bytea, now() + make_interval(days => \(RefreshTokens.lifetimeDays)::int)
            from u
        )
        select \(unescaped: Profile.columns) from u
        """).onlyRow(Profile.init(row:))
    }

    /// The account behind a username, if there is one.
    static func account(username: String) -> PostgresRead<Account?> {
        PostgresQuery("""
            select \(unescaped: Profile.columns), c.password_hash
            from users u join credentials c on c.user_id = u.id
            where u.username = \(username)
            """).firstRow(Account.init(row:))
    }

    /// Starts a new token family: a new session, whose id the service chose (its access tokens
    /// name it).
    static func startSession(_ session: Viewer, refreshHash: [UInt8]) -> PostgresQuery {
        """
        insert into refresh_tokens (user_id, family_id, token_hash, expires_at)
        values (\(session.id), \(session.session), \(PostgresBytes(refreshHash)), now() + make_interval(days => \(RefreshTokens.lifetimeDays)::int))
        """
    }

    static func replacePasswordHash(userID: PostgresUUID, passwordHash: String) -> PostgresQuery {
        "update credentials set password_hash = \(passwordHash), updated_at = now() where user_id = \(userID)"
    }

    /// Uses a refresh token once and issues its successor in the same family. Presenting a
    /// token that was already used revokes its whole family (the token was stolen, or the
    /// client is confused; either way that session ends). Both in one statement: the reuse
    /// check reads the snapshot from before this statement's own update.
    /// The token's user and session, when the token was live and is now used.
    static func rotate(presentedHash: [UInt8], successorHash: [UInt8]) -> PostgresRead<(profile: Profile, session: PostgresUUID)?> {
        let presented = PostgresBytes(presentedHash)
        let query: PostgresQuery = """
            with used as (
                update refresh_tokens set used_at = now()
                where token_hash = \(presented) and used_at is null and revoked_at is null and expires_at > now()
                returning user_id, family_id
            ), successor as (
                insert into refresh_tokens (user_id, family_id, token_hash, expires_at)
                select user_id, family_id, \(PostgresBytes(successorHash))::bytea, now() + make_interval(days => \(RefreshTokens.lifetimeDays)::int)
                from used
                returning user_id, family_id
            ), reused as (
                update refresh_tokens set revoked_at = now()
                where revoked_at is null and family_id = (
                    select family_id from refresh_tokens where token_hash = \(presented) and used_at is not null)
            )
            select \(unescaped: Profile.columns), s.family_id from users u join successor s on s.user_id = u.id
            """
        return query.firstRow { row in (try Profile(row: row), try row.decode(PostgresUUID.self, "family_id")) }
    }

    // A session is live while its family holds a live token: neither used nor revoked, not
    // expired (`app.require_session` in 0019 checks the same in every signed-in transaction).
    // The statements below that act for a session do so only while it is.

    /// Ends every session of the user, the caller's included, while the caller's is live: no
    /// row changed means it was not.
    static func revokeAll(of viewer: Viewer) -> PostgresQuery {
        """
        update refresh_tokens set revoked_at = now()
        where user_id = \(viewer.id) and used_at is null and revoked_at is null
          and exists (select from refresh_tokens
                      where family_id = \(viewer.session) and user_id = \(viewer.id)
                        and used_at is null and revoked_at is null and expires_at > now())
        """
    }

    /// The user's password hash, while the caller's session is live.
    static func passwordHash(of viewer: Viewer) -> PostgresRead<String?> {
        PostgresQuery("""
            select password_hash from credentials
            where user_id = \(viewer.id)
              and exists (select from refresh_tokens
                          where family_id = \(viewer.session) and user_id = \(viewer.id)
                            and used_at is null and revoked_at is null and expires_at > now())
            """).firstRow { try $0.decode(String.self, at: 0) }
    }

    /// Replaces the password and ends every other session of the user, while the caller's is
    /// live: false when it was not, and nothing changed.
    static func changePassword(of viewer: Viewer, to passwordHash: String) -> PostgresRead<Bool> {
        PostgresQuery("""
            with changed as (
                update credentials set password_hash = \(passwordHash), updated_at = now()
                where user_id = \(viewer.id)
                  and exists (select from refresh_tokens
                              where family_id = \(viewer.session) and user_id = \(viewer.id)
                                and used_at is null and revoked_at is null and expires_at > now())
                returning user_id
            ), ended as (
                update refresh_tokens set revoked_at = now()
                where user_id in (select user_id from changed) and family_id <> \(viewer.session)
                  and used_at is null and revoked_at is null
            )
            select exists (select from changed)
            """).onlyRow { try $0.decode(Bool.self, at: 0) }
    }

    /// The user and session holding a refresh token, by its hash: a rotation whose answer was
    /// lost is read back through the successor it stored.
    static func holder(of tokenHash: [UInt8]) -> PostgresRead<(profile: Profile, session: PostgresUUID)?> {
        PostgresQuery("""
            select \(unescaped: Profile.columns), t.family_id from refresh_tokens t join users u on u.id = t.user_id
            where t.token_hash = \(PostgresBytes(tokenHash))
            """).firstRow { row in (try Profile(row: row), try row.decode(PostgresUUID.self, "family_id")) }
    }

    /// Ends the session the token belongs to, if it is the caller's.
    static func revoke(refreshHash: [UInt8], userID: PostgresUUID) -> PostgresQuery {
        """
        update refresh_tokens set revoked_at = now()
        where revoked_at is null and family_id = (
            select family_id from refresh_tokens where token_hash = \(PostgresBytes(refreshHash)) and user_id = \(userID))
        """
    }

    /// Deletes the viewer's account and every row of theirs, while the caller's session is
    /// live (`app.delete_account`, 0026): false when it was not, and nothing changed.
    static func deleteAccount(of viewer: Viewer) -> PostgresRead<Bool> {
        PostgresQuery("select app.delete_account(\(viewer.id), \(viewer.session))").onlyRow { try $0.decode(Bool.self, at: 0) }
    }

    static func accountExists(_ user: PostgresUUID) -> PostgresRead<Bool> {
        PostgresQuery("select exists (select from users where id = \(user))").value(Bool.self)
    }
}
