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
        statements: (_ after: KeysetPosition?, _ limit: Int) -> (page: PostgresRead<[Item]>, parentExists: PostgresRead<Bool>),
        position: (Item) -> KeysetPosition
    ) async throws -> HTTPResponse {
        let page = try KeysetRequest(request, scope: scope, cursors: cursors)
        let (list, parent) = statements(page.after, page.fetchLimit)
        let (items, parentExists) = try await database {
            try await pool.execute(as: identity(for: viewer), readOnly: true, list, parent)
        }
        guard parentExists else { throw HTTPError.notFound(detail: missingParent) }
        return .json(200, page.page(items, cursors: cursors, position: position))
    }
}
