import Foundation
import HTTP
import Postgres

extension Services {
    /// A one-way keyset list that belongs to a parent (a post's comments or likers, a
    /// comment's replies): the page and whether the parent exists, in one read-only round
    /// trip, so that a missing parent is a 404 rather than an empty list.
    func childList<Item: JSONWritable>(
        _ request: HTTPRequest,
        viewer: PostgresUUID?,
        scope: String,
        missingParent: String,
        statements: (_ after: KeysetPosition?, _ limit: Int) -> (page: PostgresQuery, parentExists: PostgresQuery),
        item: (PostgresRow) throws -> Item,
        position: (Item) -> KeysetPosition
    ) async throws -> HTTPResponse {
        let page = try KeysetRequest(request, scope: scope, cursors: cursors)
        let (list, parentExists) = statements(page.after, page.fetchLimit)
        let results = try await database {
            try await pool.execute(as: identity(for: viewer), readOnly: true, [list, parentExists])
        }
        guard try results[1].rows[0].decode(Bool.self, at: 0) else { throw HTTPError.notFound(detail: missingParent) }
        let items = try results[0].rows.map(item)
        return respond(200, page.page(items, cursors: cursors, position: position))
    }
}
