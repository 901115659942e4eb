import Foundation
import HTTP
import Postgres

/// `GET /v1/search/posts?q=&page=&per=&sort=recent|top` and `GET /v1/search/users?q=&page=&per=`:
/// offset lists with a total that is exact up to 1,000. Each search runs its statements under
/// `limits.statementTimeout`.
struct SearchRoutes: Sendable {
    let services: Services
    let limits: SearchLimits

    func posts(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        let term = try SearchTerm(request)
        let order = try PostSearchOrder(request.query["sort"])
        let page = try OffsetPage(request)
        let (_, (posts, total)) = try await database {
            try await services.pool.execute(
                as: services.identity(for: viewer), readOnly: true,
                SearchQueries.settings(statementTimeout: limits.statementTimeout),
                SearchQueries.posts(matching: term, order: order, page: page, commonFrom: limits.commonFrom))
        }
        return .json(200, SearchResults(items: posts, page: page, total: total))
    }

    func users(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        let term = try SearchTerm(request)
        let page = try OffsetPage(request)
        let (_, profiles, total) = try await database {
            try await services.pool.execute(
                as: services.identity(for: viewer), readOnly: true,
                SearchQueries.settings(statementTimeout: limits.statementTimeout),
                SearchQueries.users(matching: term, page: page), SearchQueries.userTotal(matching: term))
        }
        return .json(200, SearchResults(items: profiles, page: page, total: total))
    }
}
