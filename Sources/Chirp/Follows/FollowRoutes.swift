import Foundation
import HTTP
import Postgres

/// `PUT /v1/users/:username/follow`, `DELETE /v1/users/:username/follow`: each is the write
/// and the followee's counter in one transaction (see `FollowQueries`).
/// `GET /v1/users/:username/followers` and `…/following`: newest follow first.
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

    func followers(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await list(request, "followers", FollowQueries.followers(of:after:limit:))
    }

    func following(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await list(request, "following", FollowQueries.following(of:after:limit:))
    }

    /// A page of one of a user's follow lists and whether the user exists, in one read-only
    /// round trip, so that an unknown user is a 404 rather than an empty list. Cursors are
    /// bound to the user and the list.
    private func list(
        _ request: HTTPRequest, _ name: String,
        _ page: (String, KeysetPosition, Int) -> PostgresRead<[ListedUser]>
    ) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        let username = try request.usernameParameter()
        let keyset = try KeysetRequest(request, scope: "users/\(username)/\(name)", cursors: services.cursors)
        let (items, exists) = try await database {
            try await services.read(
                as: services.identity(for: viewer).adding(FollowQueries.listSettings), for: viewer,
                page(username, keyset.after ?? .top, keyset.fetchLimit), FollowQueries.userExists(username))
        }
        guard exists else { throw HTTPError.notFound(detail: "no such user") }
        return .json(200, keyset.page(items, cursors: services.cursors))
    }

    /// What a client is told when the schema refuses a follow.
    private static func refusal(_ error: PostgresError) -> HTTPError? {
        if error.violates("follows_not_self") { return .unprocessable(detail: "you cannot follow yourself") }
        if error.violates("follows_followee_id_fkey") { return .notFound(detail: "no such user") }
        if error.violates("follows_follower_id_fkey") { return .accountGone }
        if error.isPolicyRefusal { return .blocked }
        return nil
    }
}
