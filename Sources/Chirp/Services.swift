import Foundation
import HTTP
import Postgres

/// What every group of routes needs: the database, who is asking, cursor signing and ETags.
struct Services: Sendable {
    let pool: PostgresPool
    let authenticator: Authenticator
    let cursors: CursorCodec
    let etags: ETags

    /// The identity a request's transaction runs as.
    func identity(for viewer: PostgresUUID?) -> PostgresIdentity {
        viewer.map(PostgresIdentity.user) ?? .anonymous
    }
}
