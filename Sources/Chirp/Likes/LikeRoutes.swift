import Foundation
import HTTP
import Postgres

/// `PUT /v1/posts/:id/like`, `DELETE /v1/posts/:id/like`, `GET /v1/posts/:id/likes`.
struct LikeRoutes: Sendable {
    let services: Services

    /// 200 `{postId, liked: true, likeCount}`, however many times it is sent.
    func like(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let post = try request.uuidParameter("id")
        let likeCount = try await services.count(
            after: LikeQueries.like(post, by: viewer.id), LikeQueries.likeCount(of: post), by: viewer,
            missing: "no such post", refusal: Self.refusal)
        return .json(200, LikeStatus(postId: post, liked: true, likeCount: likeCount))
    }

    /// 200 `{postId, liked: false, likeCount}`, whether or not a like was there.
    func unlike(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let post = try request.uuidParameter("id")
        let likeCount = try await services.count(
            after: LikeQueries.unlike(post, by: viewer.id), LikeQueries.likeCount(of: post), by: viewer, missing: "no such post")
        return .json(200, LikeStatus(postId: post, liked: false, likeCount: likeCount))
    }

    /// What a client is told when the schema refuses a like.
    private static func refusal(_ error: PostgresError) -> HTTPError? {
        if error.violates("likes_post_id_fkey") { return .notFound(detail: "no such post") }
        if error.violates("likes_user_id_fkey") { return .accountGone }
        if error.isPolicyRefusal { return .blocked }
        return nil
    }

    /// Who liked a post, newest like first.
    static let likerList = ChildList(
        parents: "posts", list: "likes", missingParent: "no such post", start: .top,
        page: LikeQueries.likers(of:after:limit:), parentExists: PostQueries.exists)

    func likers(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await services.respond(to: request, with: Self.likerList)
    }
}
