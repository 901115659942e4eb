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
            let result = try await transaction.query("""
                with p as (insert into posts (author_id, body) values (\(viewer), \(text)) returning *)
                select \(unescaped: Post.columns) from p join users a on a.id = p.author_id
                """)
            return respond(201, try Post(row: result.rows[0]))
        }
    }

    func show(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        let id = try request.uuidParameter("id")
        let result = try await database {
            try await services.pool.execute(as: services.identity(for: viewer), readOnly: true, [
                "select \(unescaped: Post.columns) from posts p join users a on a.id = p.author_id where p.id = \(id)",
            ])[0]
        }
        guard let row = result.first else { throw HTTPError.notFound(detail: "no such post") }
        return respond(200, try Post(row: row))
    }

    /// Only the author's own post is deleted: the policy hides everyone else's from the
    /// DELETE, and the second statement tells "not yours" (403) from "not there" (404).
    func delete(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let id = try request.uuidParameter("id")
        let results = try await database {
            try await services.pool.execute(as: .user(viewer), [
                "delete from posts where id = \(id)",
                "select exists (select from posts where id = \(id))",
            ])
        }
        if results[0].affectedRows == 1 { return .empty(204) }
        if try results[1].rows[0].decode(Bool.self, at: 0) {
            throw HTTPError.forbidden(detail: "only the author can delete a post")
        }
        throw HTTPError.notFound(detail: "no such post")
    }
}
