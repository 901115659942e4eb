import Foundation
import HTTP
import Postgres

/// `GET /v1/search/posts?q=&page=&per=&sort=recent|top` and `GET /v1/search/users?q=&page=&per=`:
/// offset lists with a (bounded) total.
struct SearchRoutes: Sendable {
    let services: Services

    func posts(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        let term = try SearchTerm(request)
        let order = try PostSearchOrder(request.query["sort"])
        let page = try OffsetPage(request)
        let (posts, total) = try await database {
            try await services.pool.execute(
                as: services.identity(for: viewer), readOnly: true,
                SearchQueries.posts(matching: term, order: order, page: page), SearchQueries.postCount(matching: term))
        }
        return .json(200, SearchResults(items: posts, page: page, total: total))
    }

    func users(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        let term = try SearchTerm(request)
        let page = try OffsetPage(request)
        let (profiles, total) = try await database {
            try await services.pool.execute(
                as: services.identity(for: viewer), readOnly: true,
                SearchQueries.users(matching: term, page: page), SearchQueries.userCount(matching: term))
        }
        return .json(200, SearchResults(items: profiles, page: page, total: total))
    }
}
