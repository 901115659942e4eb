import Foundation
import HTTP
import Postgres

/// `POST /v1/posts`, `GET|PATCH|DELETE /v1/posts/:id`.
struct PostRoutes: Sendable {
    let services: Services
    let idempotency: Idempotency

    func create(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let body = try JSONBody(request, allowed: ["body"])
        let text = try Validation.trimmedText(try body.string("body"), field: "body", maxLength: 500, minLength: 1)
        let id = PostgresUUID(UUID())
        return try await idempotency.create(
            request, owner: viewer.id.lowercasedString, as: services.writer(viewer),
            readBack: services.createdReadBack(PostQueries.post(id), by: viewer, location: Self.location(of: id))
        ) { transaction in
            let post = try await transaction.execute(PostQueries.create(id, by: viewer.id, body: text))
            return HTTPResponse.json(201, post).located(at: Self.location(of: id))
        }
    }

    static func location(of post: PostgresUUID) -> String { "/v1/posts/\(post.lowercasedString)" }

    func show(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        let id = try request.uuidParameter("id")
        let post = try await database {
            try await services.read(as: services.identity(for: viewer), for: viewer, PostQueries.post(id))
        }
        guard let post else { throw HTTPError.notFound(detail: "no such post") }
        return .json(200, post)
    }

    /// Only its author may edit a post: its body, as on create.
    static let editing = OwnedEdit(
        edit: PostQueries.edit, exists: PostQueries.exists,
        notYours: "only the author can edit a post", missing: "no such post")

    func edit(_ request: HTTPRequest) async throws -> HTTPResponse {
        let body = try JSONBody(request, allowed: ["body"])
        let text = try Validation.trimmedText(try body.string("body"), field: "body", maxLength: 500, minLength: 1)
        return try await services.respond(to: request, editing: Self.editing, body: text)
    }

    /// Only its author may delete a post.
    static let deletion = OwnedDeletion(
        delete: PostQueries.delete, exists: PostQueries.exists,
        notYours: "only the author can delete a post", missing: "no such post")

    func delete(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await services.respond(to: request, deleting: Self.deletion)
    }
}
