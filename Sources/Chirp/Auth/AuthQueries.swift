import Foundation
import Postgres

/// The statements behind sign-up, login and token rotation, run as `chirp_auth`.
enum AuthQueries {
    /// The new user, with their credentials and a first session.
    static func signUp(username: String, displayName: String, passwordHash: String, refreshHash: [UInt8]) -> PostgresRead<Profile> {
        PostgresQuery("""
        with u as (
            insert into users (username, display_name) values (\(username), \(displayName))
            returning *
        ), credential as (
            insert into credentials (user_id, password_hash) select id, \(passwordHash)::text from u
        ), token as (
            insert into refresh_tokens (user_id, family_id, token_hash, expires_at)
            select id, gen_random_uuid(), \(PostgresBytes(refreshHash))::bytea, now() + make_interval(days => \(RefreshTokens.lifetimeDays)::int)
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

    /// Starts a new token family: a new session.
    static func startSession(userID: PostgresUUID, refreshHash: [UInt8]) -> PostgresQuery {
        """
        insert into refresh_tokens (user_id, family_id, token_hash, expires_at)
        values (\(userID), gen_random_uuid(), \(PostgresBytes(refreshHash)), now() + make_interval(days => \(RefreshTokens.lifetimeDays)::int))
        """
    }

    static func replacePasswordHash(userID: PostgresUUID, passwordHash: String) -> PostgresQuery {
        "update credentials set password_hash = \(passwordHash), updated_at = now() where user_id = \(userID)"
    }

    /// Uses a refresh token once and issues its successor in the same family. Presenting a
    /// token that was already used revokes its whole family (the token was stolen, or the
    /// client is confused; either way that session ends). Both in one statement: the reuse
    /// check reads the snapshot from before this statement's own update.
    /// The token's user, when the token was live and is now used.
    static func rotate(presentedHash: [UInt8], successorHash: [UInt8]) -> PostgresRead<Profile?> {
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
                returning user_id
            ), reused as (
                update refresh_tokens set revoked_at = now()
                where revoked_at is null and family_id = (
                    select family_id from refresh_tokens where token_hash = \(presented) and used_at is not null)
            )
            select \(unescaped: Profile.columns) from users u join successor s on s.user_id = u.id
            """
        return query.firstRow(Profile.init(row:))
    }

    /// Ends the session the token belongs to, if it is the caller's.
    static func revoke(refreshHash: [UInt8], userID: PostgresUUID) -> PostgresQuery {
        """
        update refresh_tokens set revoked_at = now()
        where revoked_at is null and family_id = (
            select family_id from refresh_tokens where token_hash = \(PostgresBytes(refreshHash)) and user_id = \(userID))
        """
    }
}
