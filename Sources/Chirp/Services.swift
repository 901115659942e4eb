import Foundation
import HTTP
import Observability
import Postgres

/// What every group of routes needs: the database, who is asking, cursor signing and ETags.
struct Services: Sendable {
    /// The primary: every write, and every read that must see the latest state.
    let pool: PostgresPool
    /// Where reads that can tolerate lag may go (`read`); nil without replicas.
    let replicas: Replicas?
    let authenticator: Authenticator
    let cursors: CursorCodec
    let etags: ETags
    let metrics: Metrics

    /// The identity a request's transaction runs as.
    func identity(for viewer: PostgresUUID?) -> PostgresIdentity {
        viewer.map(PostgresIdentity.user) ?? .anonymous
    }
}
