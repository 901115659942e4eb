import Postgres

/// Who a signed-in request speaks for: the user, and the session (refresh-token family) its
/// access token was issued in. The session is checked live in every transaction the request
/// runs (`PostgresIdentity.user(_:)`), so ending it ends its access tokens at once.
public struct Viewer: Sendable, Hashable {
    public let id: PostgresUUID
    public let session: PostgresUUID

    public init(id: PostgresUUID, session: PostgresUUID) {
        self.id = id
        self.session = session
    }
}
