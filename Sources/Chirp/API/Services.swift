import Foundation
import HTTP
import Postgres

/// What every group of routes needs: the database, who is asking, and cursor signing.
struct Services: Sendable {
    let pool: PostgresPool
    let authenticator: Authenticator
    let cursors: CursorCodec

    /// The identity a request's transaction runs as.
    func identity(for viewer: UUID?) -> PostgresIdentity {
        viewer.map(PostgresIdentity.user) ?? .anonymous
    }
}
