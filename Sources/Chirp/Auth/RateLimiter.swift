import Foundation
import HTTP
import Postgres

/// A budget of attempts per fixed window, e.g. 10 logins a minute for one username.
public struct RateLimit: Sendable, Equatable {
    public var name: String
    public var limit: Int
    public var windowSeconds: Int

    public init(name: String, limit: Int, windowSeconds: Int) {
        self.name = name
        self.limit = limit
        self.windowSeconds = windowSeconds
    }
}

/// The budgets of the unauthenticated endpoints that cost a password hash or a token.
public struct RateLimits: Sendable, Equatable {
    public var signupPerAddress = RateLimit(name: "signup-ip", limit: 20, windowSeconds: 3_600)
    public var loginPerAddress = RateLimit(name: "login-ip", limit: 60, windowSeconds: 60)
    public var loginPerUsername = RateLimit(name: "login-user", limit: 10, windowSeconds: 60)
    public var refreshPerAddress = RateLimit(name: "refresh-ip", limit: 60, windowSeconds: 60)

    public init() {}
}

/// Counts one attempt against a budget, in the database (shared by every instance), and
/// reads the outcome back in the same statement.
struct RateLimitCheck {
    let limit: RateLimit
    let key: String

    /// The attempt's statement: it counts the attempt and returns the budget's state.
    var statement: PostgresRead<Outcome> {
        let bucket = "\(limit.name):\(key)"
        let query: PostgresQuery = """
            insert into rate_limit_hits as h (bucket, window_start, hits)
            values (\(bucket), to_timestamp(floor(extract(epoch from now()) / \(limit.windowSeconds)) * \(limit.windowSeconds)), 1)
            on conflict (bucket, window_start) do update set hits = h.hits + 1
            returning h.hits, greatest(1, ceil(extract(epoch from h.window_start) + \(limit.windowSeconds) - extract(epoch from now())))::int8
            """
        return query.onlyRow { [limit] row in
            let (hits, reset) = try row.decode((Int, Int).self)
            return Outcome(limit: limit, hits: hits, resetSeconds: reset)
        }
    }

    struct Outcome {
        let limit: RateLimit
        let hits: Int
        let resetSeconds: Int
        var allowed: Bool { hits <= limit.limit }
        var remaining: Int { max(0, limit.limit - hits) }
    }
}

extension [RateLimitCheck.Outcome] {
    /// The IETF `RateLimit-Policy` and `RateLimit` fields for the tightest budget, and, when a
    /// budget is spent, the 429 to answer with.
    func enforce() throws -> HTTPHeaders {
        var headers = HTTPHeaders()
        guard let tightest = self.min(by: { ($0.allowed ? 1 : 0, $0.remaining) < ($1.allowed ? 1 : 0, $1.remaining) }) else {
            return headers
        }
        headers.set("RateLimit-Policy", map { "\"\($0.limit.name)\";q=\($0.limit.limit);w=\($0.limit.windowSeconds)" }.joined(separator: ", "))
        headers.set("RateLimit", "\"\(tightest.limit.name)\";r=\(tightest.remaining);t=\(tightest.resetSeconds)")
        if !tightest.allowed {
            var error = HTTPError.tooManyRequests(retryAfter: tightest.resetSeconds, detail: "too many attempts; retry later")
            for (name, value) in headers { error.headers.set(name, value) }
            throw error
        }
        return headers
    }
}
