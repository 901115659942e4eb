import Foundation
import HTTP
import Postgres

/// `GET|POST /v1/posts/:id/comments`, `GET|PATCH|DELETE /v1/comments/:id`, `GET /v1/comments/:id/replies`.
struct CommentRoutes: Sendable {
    let services: Services
    let idempotency: Idempotency

    static let maxLength = 2000

    /// A post's top-level comments, oldest first.
    static let commentList = ChildList(
        parents: "posts", list: "comments", missingParent: "no such post", start: .bottom,
        page: CommentQueries.thread(of:after:limit:), parentExists: PostQueries.exists)

    /// The replies to one comment, oldest first.
    static let replyList = ChildList(
        parents: "comments", list: "replies", missingParent: "no such comment", start: .bottom,
        page: CommentQueries.replies(to:after:limit:), parentExists: CommentQueries.exists)

    func thread(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await services.respond(to: request, with: Self.commentList)
    }

    func replies(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await services.respond(to: request, with: Self.replyList)
    }

    static func location(of comment: PostgresUUID) -> String { "/v1/comments/\(comment.lowercasedString)" }

    /// One comment, or a reply.
    func show(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        let id = try request.uuidParameter("id")
        let comment = try await database {
            try await services.read(as: services.identity(for: viewer), for: viewer, CommentQueries.comment(id))
        }
        guard let comment else { throw HTTPError.notFound(detail: "no such comment") }
        return .json(200, comment)
    }

    /// Only its author may edit a comment (the post's author may delete it, not rewrite it).
    static let editing = OwnedEdit(
        edit: CommentQueries.edit, exists: CommentQueries.exists,
        notYours: "only the author can edit a comment", missing: "no such comment")

    func edit(_ request: HTTPRequest) async throws -> HTTPResponse {
        let body = try JSONBody(request, allowed: ["body"])
        let text = try Validation.trimmedText(try body.string("body"), field: "body", maxLength: Self.maxLength, minLength: 1)
        return try await services.respond(to: request, editing: Self.editing, body: text)
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
        let id = PostgresUUID(UUID())
        return try await idempotency.create(
            request, owner: viewer.id.lowercasedString, as: services.writer(viewer),
            readBack: services.createdReadBack(CommentQueries.comment(id), by: viewer, location: Self.location(of: id))
        ) { transaction in
            let created: Comment?
            do {
                created = try await transaction.execute(CommentQueries.create(id, on: post, parent: parent, by: viewer.id, body: text))
            } catch let error as PostgresError {
                throw Self.refusal(error) ?? error
            }
            guard let created else {
                // Not there, or there and hidden by a block with its author.
                if try await transaction.execute(PostQueries.hiddenByBlock(post)) { throw HTTPError.blocked }
                throw HTTPError.notFound(detail: "no such post")
            }
            return HTTPResponse.json(201, created).located(at: Self.location(of: id))
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
        if error.isPolicyRefusal {
            return .blocked  // a reply to a comment whose author is across a block
        }
        return nil
    }

    /// The comment's author or the post's author may delete a comment.
    static let deletion = OwnedDeletion(
        delete: CommentQueries.delete, exists: CommentQueries.exists,
        notYours: "only the comment's author or the post's author can delete a comment", missing: "no such comment")

    func delete(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await services.respond(to: request, deleting: Self.deletion)
    }
}
