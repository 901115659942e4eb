import Foundation
import HTTP
import Postgres

/// `PUT /v1/posts/:id/like`, `DELETE /v1/posts/:id/like`, `GET /v1/posts/:id/likes`.
struct LikeRoutes: Sendable {
    let services: Services

    func register(on router: Router) {
        router.add(.PUT, "/v1/posts/:id/like", like)
        router.add(.DELETE, "/v1/posts/:id/like", unlike)
        router.add(.GET, "/v1/posts/:id/likes", likers)
    }

    /// 200 `{postId, liked: true, likeCount}`, however many times it is sent.
    func like(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let post = try request.uuidParameter("id")
        let (_, likeCount) = try await database {
            do {
                return try await services.pool.execute(as: .user(viewer), LikeQueries.like(post, by: viewer), LikeQueries.likeCount(of: post))
            } catch let error as PostgresError where error.violates("likes_post_id_fkey") {
                throw HTTPError.notFound(detail: "no such post")
            } catch let error as PostgresError where error.violates("likes_user_id_fkey") {
                throw HTTPError.accountGone
            }
        }
        return try status(of: post, liked: true, likeCount: likeCount)
    }

    /// 200 `{postId, liked: false, likeCount}`, whether or not a like was there.
    func unlike(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let post = try request.uuidParameter("id")
        let (_, likeCount) = try await database {
            try await services.pool.execute(as: .user(viewer), LikeQueries.unlike(post, by: viewer), LikeQueries.likeCount(of: post))
        }
        return try status(of: post, liked: false, likeCount: likeCount)
    }

    /// The answer; no count means no post.
    private func status(of post: PostgresUUID, liked: Bool, likeCount: Int?) throws -> HTTPResponse {
        guard let likeCount else { throw HTTPError.notFound(detail: "no such post") }
        return .json(200, LikeStatus(postId: post, liked: liked, likeCount: likeCount))
    }

    /// Who liked a post, newest like first.
    func likers(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        let post = try request.uuidParameter("id")
        return try await services.childList(
            request, viewer: viewer, scope: "posts/\(post.lowercasedString)/likes", missingParent: "no such post",
            statements: { after, limit in
                (LikeQueries.likers(of: post, after: after ?? .top, limit: limit), PostQueries.exists(post))
            },
            position: \.position)
    }
}
