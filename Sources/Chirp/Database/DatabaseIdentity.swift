import Foundation
import Postgres

/// The database roles a request can act as (see `sql/migrations/0001_roles.sql`). Every
/// request's statements run inside a transaction that switches to one of them, so the
/// row-level security policies, not the service, decide what the request may touch.
extension PostgresIdentity {
    /// A request without a token: reads public rows only.
    public static let anonymous = PostgresIdentity(role: "chirp_anon")

    /// A user: the policies compare rows against `app.user_id`. Requests run as `user(_ viewer:)`.
    public static func user(_ id: PostgresUUID) -> PostgresIdentity {
        PostgresIdentity(role: "chirp_user", settings: [.init("app.user_id", id.lowercasedString)])
    }

    /// A signed-in request: the user, with the session its token names required live before
    /// any statement runs (`app.require_session`, SQLSTATE CH002 once the session has ended).
    /// The check also moves a user in no block to `chirp_user_outside_blocks`, whose reads carry
    /// no block checks (0034); a user in a block stays `chirp_user`.
    public static func user(_ viewer: Viewer) -> PostgresIdentity {
        user(viewer.id).checking(.init(function: "app.require_session", argument: viewer.session.lowercasedString, choosesRole: true))
    }

    /// Sign-up, login and refresh tokens: the only role that can read credentials, which only
    /// the auth login (`ChirpConfiguration.authDatabase`) can become (0021).
    public static let authService = PostgresIdentity(role: "chirp_signin")
}
