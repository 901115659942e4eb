import HTTP
import Postgres

/// A row named by the path's `id` that only some may delete: a post, a comment. Row-level
/// security hides the row from anyone else's DELETE, so it deletes nothing; `exists` then
/// tells "not yours" (403) from "not there" (404).
struct OwnedDeletion: Sendable {
    var delete: @Sendable (PostgresUUID) -> PostgresRead<Int>
    var exists: @Sendable (PostgresUUID) -> PostgresRead<Bool>
    var notYours: String
    var missing: String
}

extension Services {
    /// 204 once deleted, both statements in one transaction as the viewer.
    func respond(to request: HTTPRequest, deleting row: OwnedDeletion) async throws -> HTTPResponse {
        let viewer = try authenticator.requireViewer(of: request)
        let id = try request.uuidParameter("id")
        let (deleted, stillExists) = try await database {
            do {
                return try await pool.execute(as: writer(viewer), row.delete(id), row.exists(id))
            } catch let error as PostgresError where error.kind == .committedUnanswered {
                // Committed, its answer lost. Still there: it was not the viewer's to delete.
                // Gone: this delete took it, or it was gone already; either way a DELETE's
                // end state, answered 204.
                let (_, stillExists) = try await pool.execute(as: writer(viewer), row.delete(id), row.exists(id))
                return (stillExists ? 0 : 1, stillExists)
            }
        }
        if deleted == 1 { return .empty(204) }
        if stillExists { throw HTTPError.forbidden(detail: row.notYours) }
        throw HTTPError.notFound(detail: row.missing)
    }
}
