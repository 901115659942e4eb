import HTTP
import Postgres

/// A row its author may edit, and what everyone else is told: the update policy lets only the
/// author see the row, so another user's edit changes nothing, and whether the row exists
/// decides between 403 and 404.
struct OwnedEdit<Row: JSONWritable>: Sendable {
    var edit: @Sendable (_ id: PostgresUUID, _ body: String) -> PostgresRead<Row?>
    var exists: @Sendable (PostgresUUID) -> PostgresRead<Bool>
    var notYours: String
    var missing: String
}

extension Services {
    /// 200 with the edited row, the edit and the existence check in one transaction as the
    /// viewer. An edit may simply run again (the same body again changes nothing, `editedAt`
    /// included), so one whose answer was lost as it committed is run again for its answer.
    func respond<Row>(to request: HTTPRequest, editing row: OwnedEdit<Row>, body text: String) async throws -> HTTPResponse {
        let viewer = try authenticator.requireViewer(of: request)
        let id = try request.uuidParameter("id")
        let (edited, exists) = try await database {
            try await repeatable { try await pool.execute(as: writer(viewer), row.edit(id, text), row.exists(id)) }
        }
        if let edited { return .json(200, edited) }
        if exists { throw HTTPError.forbidden(detail: row.notYours) }
        throw HTTPError.notFound(detail: row.missing)
    }
}
