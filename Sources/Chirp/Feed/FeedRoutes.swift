import Foundation
import HTTP
import Postgres

/// `GET /v1/posts` (everyone's), `GET /v1/feed` (home), `GET /v1/users/:username/posts`.
struct FeedRoutes: Sendable {
    let services: Services

    func globalTimeline(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        let source = TimelineSource.global(viewer: viewer?.id)
        let page = try TimelineRequest(request, source: source, cursors: services.cursors)
        let posts = try await database {
            try await services.read(as: services.identity(for: viewer), for: viewer, page.statement(for: source))
        }
        return respond(to: request, with: posts, of: source, page: page)
    }

    func homeFeed(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let source = TimelineSource.home(viewer: viewer.id)
        let page = try TimelineRequest(request, source: source, cursors: services.cursors)
        let posts = try await database {
            try await services.read(as: .user(viewer).adding(TimelineQueries.homeSettings), for: viewer, page.statement(for: source))
        }
        return respond(to: request, with: posts, of: source, page: page)
    }

    /// One author's posts; an unknown author is a 404 rather than an empty list.
    func authorTimeline(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        let username = try request.usernameParameter()
        let source = TimelineSource.author(username: username)
        let page = try TimelineRequest(request, source: source, cursors: services.cursors)
        let (posts, authorExists) = try await database {
            try await services.read(
                as: services.identity(for: viewer), for: viewer, page.statement(for: source), ProfileQueries.exists(username: username))
        }
        guard authorExists else { throw HTTPError.notFound(detail: "no such user") }
        return respond(to: request, with: posts, of: source, page: page)
    }

    /// The page as JSON; a first page is tagged, so a refresh that finds nothing new gets 304.
    private func respond(to request: HTTPRequest, with posts: [Post], of source: TimelineSource, page: TimelineRequest) -> HTTPResponse {
        let response = HTTPResponse.json(200, page.page(posts, source: source, cursors: services.cursors))
        return page.isFirstPage ? services.etags.respond(to: request, with: response) : response
    }
}
