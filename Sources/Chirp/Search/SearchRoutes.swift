import Foundation
import HTTP
import Postgres

/// `GET /v1/search/posts?q=&page=&per=&sort=recent|top` and `GET /v1/search/users?q=&page=&per=`:
/// offset lists with a total that is exact up to 1,000. Each search first counts against its
/// address's budget (in memory), then runs its statements under `limits.statementTimeout`.
struct SearchRoutes: Sendable {
    let services: Services
    let limits: SearchLimits
    let limiter: SearchRateLimiter
    let estimates = SearchEstimates()

    init(services: Services, limits: SearchLimits) {
        self.services = services
        self.limits = limits
        limiter = SearchRateLimiter(limit: limits.perAddress, capacity: limits.countedAddresses)
    }

    func posts(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await budgeted(request) {
            let viewer = try services.authenticator.viewer(of: request)
            let term = try SearchTerm(request)
            let order = try PostSearchOrder(request.query["sort"])
            let page = try OffsetPage(request)
            let known = estimates.estimate(of: term.text)
            let found = try await database {
                try await services.read(
                    as: identity(for: viewer), for: viewer,
                    SearchQueries.posts(matching: term, order: order, page: page, commonFrom: limits.commonFrom, estimate: known))
            }
            if known == nil { estimates.remember(found.estimate, of: term.text) }
            return .json(200, SearchResults(items: found.posts, page: page, total: found.total))
        }
    }

    func users(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await budgeted(request) {
            let viewer = try services.authenticator.viewer(of: request)
            let term = try SearchTerm(request)
            let page = try OffsetPage(request)
            let (profiles, total) = try await database {
                try await services.read(
                    as: identity(for: viewer), for: viewer,
                    SearchQueries.users(matching: term, page: page), SearchQueries.userTotal(matching: term))
            }
            return .json(200, SearchResults(items: profiles, page: page, total: total))
        }
    }

    /// The viewer's identity, with the settings every search runs under.
    private func identity(for viewer: Viewer?) -> PostgresIdentity {
        services.identity(for: viewer).adding(SearchQueries.settings(statementTimeout: limits.statementTimeout))
    }

    /// Counts the search against its address's budget (a 429 once spent) and reports the
    /// budget on whatever the search answers.
    private func budgeted(_ request: HTTPRequest, _ search: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        let headers = try [limiter.count(request.remoteAddress)].enforce()
        return try await reporting(headers, search)
    }
}
