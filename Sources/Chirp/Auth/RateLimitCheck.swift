import HTTP
import Postgres

/// Counts one attempt against a budget, in the database (shared by every instance), and
/// reads the outcome back in the same statement.
struct RateLimitCheck {
    let limit: RateLimit
    let key: String

    /// The attempt's statement: it counts the attempt and returns the budget's state.
    var statement: PostgresRead<Outcome> {
        RateLimitQueries.count(bucket: bucket, windowSeconds: limit.windowSeconds)
            .onlyRow { [limit] row in
                let (hits, reset) = try row.decode((Int, Int).self)
                return Outcome(limit: limit, hits: hits, resetSeconds: reset)
            }
    }

    /// Takes the attempt back out of the budget, for a budget of failures when the attempt
    /// succeeded. Counting every attempt first and refunding successes, rather than counting
    /// failures once known, keeps concurrent attempts from all passing an almost spent budget.
    var refund: PostgresQuery {
        RateLimitQueries.refund(bucket: bucket, windowSeconds: limit.windowSeconds)
    }

    private var bucket: String { "\(limit.name):\(key)" }

    /// A budget's state after an attempt: counted here, or in memory for search
    /// (`SearchRateLimiter`).
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

/// Runs the part of a request after its attempt was counted. Every answer, success or error
/// (wrong password, taken username, dead refresh token, a replayed sign-up, a search the
/// database gave up on), carries the budget's `RateLimit-Policy` and `RateLimit` fields, so a
/// client always sees how many attempts it has left.
func reporting(_ headers: HTTPHeaders, _ body: () async throws -> HTTPResponse) async throws -> HTTPResponse {
    do {
        var response = try await body()
        for (name, value) in headers where !response.headers.contains(name) { response.headers.set(name, value) }
        return response
    } catch var error as HTTPError {
        for (name, value) in headers where !error.headers.contains(name) { error.headers.set(name, value) }
        throw error
    }
}
