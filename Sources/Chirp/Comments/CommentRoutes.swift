import Foundation
import HTTP
import Postgres

/// `GET|POST /v1/posts/:id/comments`, `GET /v1/comments/:id/replies`, `DELETE /v1/comments/:id`.
struct CommentRoutes: Sendable {
    let services: Services
    let idempotency: Idempotency

    static let maxLength = 2000

    func register(on router: Router) {
        router.add(.GET, "/v1/posts/:id/comments", thread)
        router.add(.POST, "/v1/posts/:id/comments", create)
        router.add(.GET, "/v1/comments/:id/replies", replies)
        router.add(.DELETE, "/v1/comments/:id", delete)
    }

    /// A post's top-level comments, oldest first.
    func thread(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        let post = try request.uuidParameter("id")
        return try await services.childList(
            request, viewer: viewer, scope: "posts/\(post.lowercasedString)/comments", missingParent: "no such post",
            statements: { after, limit in
                (CommentQueries.thread(of: post, after: after ?? .bottom, limit: limit), PostQueries.exists(post))
            },
            position: \.position)
    }

    /// The replies to one comment, oldest first.
    func replies(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        let comment = try request.uuidParameter("id")
        return try await services.childList(
            request, viewer: viewer, scope: "comments/\(comment.lowercasedString)/replies", missingParent: "no such comment",
            statements: { after, limit in
                (CommentQueries.replies(to: comment, after: after ?? .bottom, limit: limit), CommentQueries.exists(comment))
            },
            position: \.position)
    }

    /// 201 Comment; `parentId` makes it a reply to a top-level comment of the same post.
    /// Honours `Idempotency-Key`.
    func create(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let post = try request.uuidParameter("id")
        let body = try JSONBody(request, allowed: ["body", "parentId"])
        let text = try Validation.trimmedText(try body.string("body"), field: "body", maxLength: Self.maxLength, minLength: 1)
        let parent = try body.optionalString("parentId").map { raw in
            guard let id = PostgresUUID(canonical: raw) else {
                throw HTTPError.unprocessable(detail: "parentId must be a UUID")
            }
            return id
        }
        return try await idempotency.create(request, owner: viewer.lowercasedString, as: .user(viewer)) { transaction in
            let created: Comment?
            do {
                created = try await transaction.execute(CommentQueries.create(on: post, parent: parent, by: viewer, body: text))
            } catch let error as PostgresError {
                throw Self.refusal(error) ?? error
            }
            guard let created else { throw HTTPError.notFound(detail: "no such post") }
            return .json(201, created)
        }
    }

    /// What a client is told when the schema refuses a new comment.
    private static func refusal(_ error: PostgresError) -> HTTPError? {
        if error.violates("comments_parent_same_post_fkey") || error.violates("comments_reply_to_top_level")
            || error.violates("comments_not_own_parent") {
            return .unprocessable(detail: "parentId must be a top-level comment of this post")
        }
        if error.violates("comments_post_id_fkey") {
            return .notFound(detail: "no such post")  // deleted while the comment was being written
        }
        if error.violates("comments_body_length") {
            return .unprocessable(detail: "body must be at most \(maxLength) characters")
        }
        if error.violates("comments_author_id_fkey") {
            return .accountGone
        }
        return nil
    }

    /// 204 for the comment's author or the post's author: the policy hides the row from
    /// anyone else's DELETE, and the second statement tells "not yours" (403) from "not
    /// there" (404).
    func delete(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let comment = try request.uuidParameter("id")
        let (deleted, stillExists) = try await database {
            try await services.pool.execute(as: .user(viewer), CommentQueries.delete(comment), CommentQueries.exists(comment))
        }
        if deleted == 1 { return .empty(204) }
        if stillExists {
            throw HTTPError.forbidden(detail: "only the comment's author or the post's author can delete a comment")
        }
        throw HTTPError.notFound(detail: "no such comment")
    }
}
