import Foundation
import HTTP
import Postgres

/// `POST /v1/posts`, `GET /v1/posts/:id`, `DELETE /v1/posts/:id`.
struct PostRoutes: Sendable {
    let services: Services
    let idempotency: Idempotency

    func register(on router: Router) {
        router.add(.POST, "/v1/posts", create)
        router.add(.GET, "/v1/posts/:id", show)
        router.add(.DELETE, "/v1/posts/:id", delete)
    }

    func create(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let body = try JSONBody(request, allowed: ["body"])
        let text = try Validation.trimmedText(try body.string("body"), field: "body", maxLength: 500, minLength: 1)
        return try await idempotency.create(request, owner: viewer.lowercasedString, as: .user(viewer)) { transaction in
            let post = try await transaction.execute(PostQueries.create(by: viewer, body: text))
            return .json(201, post)
        }
    }

    func show(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        let id = try request.uuidParameter("id")
        let post = try await database {
            try await services.pool.execute(as: services.identity(for: viewer), readOnly: true, PostQueries.post(id))
        }
        guard let post else { throw HTTPError.notFound(detail: "no such post") }
        return .json(200, post)
    }

    /// Only the author's own post is deleted: the policy hides everyone else's from the
    /// DELETE, and the second statement tells "not yours" (403) from "not there" (404).
    func delete(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let id = try request.uuidParameter("id")
        let (deleted, stillExists) = try await database {
            try await services.pool.execute(as: .user(viewer), PostQueries.delete(id), PostQueries.exists(id))
        }
        if deleted == 1 { return .empty(204) }
        if stillExists {
            throw HTTPError.forbidden(detail: "only the author can delete a post")
        }
        throw HTTPError.notFound(detail: "no such post")
    }
}
