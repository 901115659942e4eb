import Foundation
import HTTP
import Postgres

/// `GET /v1/posts` (everyone's), `GET /v1/feed` (home), `GET /v1/users/:username/posts`.
struct FeedRoutes: Sendable {
    let services: Services

    func register(on router: Router) {
        router.add(.GET, "/v1/posts", globalTimeline)
        router.add(.GET, "/v1/feed", homeFeed)
        router.add(.GET, "/v1/users/:username/posts", authorTimeline)
    }

    func globalTimeline(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        return try await timeline(.global, request: request, viewer: viewer)
    }

    func homeFeed(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        return try await timeline(.home(viewer: viewer), request: request, viewer: viewer)
    }

    func authorTimeline(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        let username = try request.usernameParameter()
        return try await timeline(.author(username: username), request: request, viewer: viewer)
    }

    private func timeline(_ source: TimelineSource, request: HTTPRequest, viewer: PostgresUUID?) async throws -> HTTPResponse {
        let page = try TimelineRequest(request, source: source, cursors: services.cursors)
        var statements = [source.query(below: page.upper, above: page.floor ?? .bottom, limit: page.limit + 1)]
        if case .author(let username) = source {
            statements.append("select exists (select from users where username = \(username))")
        }
        let results = try await database {
            try await services.pool.execute(as: services.identity(for: viewer), readOnly: true, statements)
        }
        if statements.count == 2, try !results[1].rows[0].decode(Bool.self, at: 0) {
            throw HTTPError.notFound(detail: "no such user")
        }
        let posts = try results[0].rows.map(Post.init(row:))
        let response = respond(200, page.page(posts, source: source, cursors: services.cursors))
        return page.isFirstPage ? services.etags.respond(to: request, with: response) : response
    }
}
