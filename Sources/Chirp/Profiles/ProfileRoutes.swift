import Foundation
import HTTP
import Postgres

/// `GET /v1/users/:username`, `GET|PATCH /v1/me`.
struct ProfileRoutes: Sendable {
    let services: Services

    /// Where a user's profile lives: usernames are `a-z`, `0-9` and `_`, safe in a path.
    static func location(of username: String) -> String { "/v1/users/\(username)" }

    /// The profile and the first page of the user's posts, read concurrently on two
    /// connections, so the answer takes as long as the slower read.
    func show(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        let username = try request.usernameParameter()
        let source = TimelineSource.author(username: username)
        let page = try TimelineRequest(firstPageOf: request)
        // The slower read, the page of posts, is sent first: sending wakes a database backend,
        // which may take the loop's core for a moment, and the quick profile read sent second
        // still finishes before the page does.
        let (posts, profile) = try await database {
            try await services.readConcurrently(
                as: services.identity(for: viewer), for: viewer,
                TimelineQueries.page(of: source, below: .top, above: .bottom, limit: page.limit + 1),
                ProfileQueries.profile(username: username))
        }
        guard let profile else { throw HTTPError.notFound(detail: "no such user") }
        let response = HTTPResponse.json(200, ProfilePage(profile: profile, posts: page.page(posts, source: source, cursors: services.cursors)))
        return services.etags.respond(to: request, with: response)
    }

    func me(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let profile = try await database {
            try await services.read(as: .user(viewer), for: viewer, ProfileQueries.profile(of: viewer.id))
        }
        guard let profile else { throw HTTPError.unauthorized(detail: "the account no longer exists") }
        return .json(200, profile)
    }

    func updateMe(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let body = try JSONBody(request, allowed: ["displayName", "bio"])
        let displayName = try body.optionalString("displayName").map { try Validation.trimmedText($0, field: "displayName", maxLength: 50) }
        let bio = try body.optionalString("bio").map { try Validation.text($0, field: "bio", maxLength: 300) }
        if let displayName { try Validation.withoutInvisibleFormatting(displayName, field: "displayName") }
        if let bio { try Validation.withoutInvisibleFormatting(bio, field: "bio") }
        let profile = try await database {
            try await repeatable {
                try await services.pool.execute(as: services.writer(viewer), ProfileQueries.update(displayName: displayName, bio: bio))
            }
        }
        guard let profile else { throw HTTPError.unauthorized(detail: "the account no longer exists") }
        return .json(200, profile)
    }
}
