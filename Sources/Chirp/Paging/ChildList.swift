import HTTP
import Postgres

/// A one-way keyset list that belongs to a parent named by the path's `id`: a post's comments
/// or likers, a comment's replies.
struct ChildList<Item: KeysetListItem>: Sendable {
    /// The parent's collection and the list's name, as in the path: cursors are bound to
    /// `parents/ID/list`.
    var parents: String
    var list: String
    var missingParent: String
    /// Where a first page starts: `.bottom` for a list oldest first, `.top` for newest first.
    var start: KeysetPosition
    var page: @Sendable (_ parent: PostgresUUID, _ after: KeysetPosition, _ limit: Int) -> PostgresRead<[Item]>
    var parentExists: @Sendable (_ parent: PostgresUUID) -> PostgresRead<Bool>
}

extension Services {
    /// A page of `list` and whether its parent exists, in one read-only round trip, so that a
    /// missing parent is a 404 rather than an empty list.
    func respond<Item>(to request: HTTPRequest, with list: ChildList<Item>) async throws -> HTTPResponse {
        let viewer = try authenticator.viewer(of: request)
        let parent = try request.uuidParameter("id")
        let page = try KeysetRequest(request, scope: "\(list.parents)/\(parent.lowercasedString)/\(list.list)", cursors: cursors)
        let (items, parentExists) = try await database {
            try await read(
                as: identity(for: viewer), for: viewer,
                list.page(parent, page.after ?? list.start, page.fetchLimit), list.parentExists(parent))
        }
        guard parentExists else { throw HTTPError.notFound(detail: list.missingParent) }
        return .json(200, page.page(items, cursors: cursors))
    }
}
