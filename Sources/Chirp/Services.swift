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
    func identity(for viewer: Viewer?) -> PostgresIdentity {
        viewer.map(PostgresIdentity.user) ?? .anonymous
    }

    /// The identity a signed-in user's writes run as: with replicas, it asks the database to
    /// record the write's mark (`sql/migrations/0018_write_marks_only_with_replicas.sql`), so
    /// the writer's next reads find it wherever they go; without, writes skip that cost.
    func writer(_ viewer: Viewer) -> PostgresIdentity {
        replicas == nil ? .user(viewer) : .user(viewer).adding([.init("app.read_your_writes", "on")])
    }

    /// How a create answers when it committed and its answer was lost (`Idempotency.create`):
    /// the new row, read back on the primary as its creator, under the id the service chose,
    /// and where it lives (`location`).
    func createdReadBack<Row: JSONWritable>(
        _ read: PostgresRead<Row?>, by viewer: Viewer, location: String
    ) -> () async throws -> HTTPResponse {
        {
            guard let row = try await pool.execute(as: writer(viewer), read) else {
                throw PostgresError(.outcomeUnknown, message: "a create committed, but its row cannot be read back")
            }
            return HTTPResponse.json(201, row).located(at: location)
        }
    }
}
