import Foundation
import HTTP
import Postgres

/// `PUT /v1/users/:username/follow`, `DELETE /v1/users/:username/follow`: each is the write
/// and the followee's counter in one transaction (see `FollowQueries`).
struct FollowRoutes: Sendable {
    let services: Services

    /// Idempotent; an unknown user inserts nothing and has no counter (404); following
    /// yourself is refused by `follows_not_self` (422).
    func follow(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let username = try request.usernameParameter()
        let followerCount = try await services.count(
            after: FollowQueries.follow(username), FollowQueries.followerCount(of: username), by: viewer,
            missing: "no such user", refusal: Self.refusal)
        return .json(200, FollowStatus(username: username, following: true, followerCount: followerCount))
    }

    /// Idempotent: 200 whether or not the viewer was following.
    func unfollow(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let username = try request.usernameParameter()
        let followerCount = try await services.count(
            after: FollowQueries.unfollow(username), FollowQueries.followerCount(of: username), by: viewer, missing: "no such user")
        return .json(200, FollowStatus(username: username, following: false, followerCount: followerCount))
    }

    /// What a client is told when the schema refuses a follow.
    private static func refusal(_ error: PostgresError) -> HTTPError? {
        if error.violates("follows_not_self") { return .unprocessable(detail: "you cannot follow yourself") }
        if error.violates("follows_followee_id_fkey") { return .notFound(detail: "no such user") }
        if error.violates("follows_follower_id_fkey") { return .accountGone }
        return nil
    }
}
