import Foundation
import HTTP
import Postgres

/// `PUT /v1/users/:username/follow`, `DELETE /v1/users/:username/follow`: each is the write
/// and the followee's counter in one transaction (see `FollowQueries`).
struct FollowRoutes: Sendable {
    let services: Services

    func register(on router: Router) {
        router.add(.PUT, "/v1/users/:username/follow", follow)
        router.add(.DELETE, "/v1/users/:username/follow", unfollow)
    }

    /// Idempotent; an unknown user inserts nothing and has no counter (404); following
    /// yourself is refused by `follows_not_self` (422).
    func follow(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let username = try request.usernameParameter()
        let (_, followerCount) = try await database {
            do {
                return try await services.pool.execute(
                    as: .user(viewer), FollowQueries.follow(username), FollowQueries.followerCount(of: username))
            } catch let error as PostgresError where error.violates("follows_not_self") {
                throw HTTPError.unprocessable(detail: "you cannot follow yourself")
            } catch let error as PostgresError where error.violates("follows_followee_id_fkey") {
                throw HTTPError.notFound(detail: "no such user")
            } catch let error as PostgresError where error.violates("follows_follower_id_fkey") {
                throw HTTPError.accountGone
            }
        }
        return try status(of: username, following: true, followerCount: followerCount)
    }

    /// Idempotent: 200 whether or not the viewer was following.
    func unfollow(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let username = try request.usernameParameter()
        let (_, followerCount) = try await database {
            try await services.pool.execute(
                as: .user(viewer), FollowQueries.unfollow(username), FollowQueries.followerCount(of: username))
        }
        return try status(of: username, following: false, followerCount: followerCount)
    }

    /// The answer; no count means no user.
    private func status(of username: String, following: Bool, followerCount: Int?) throws -> HTTPResponse {
        guard let followerCount else { throw HTTPError.notFound(detail: "no such user") }
        return .json(200, FollowStatus(username: username, following: following, followerCount: followerCount))
    }
}
