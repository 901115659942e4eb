import HTTP
import Postgres

/// What a client is told when the database refuses or fails. Details stay in the log.
extension HTTPError {
    static func database(_ error: PostgresError) -> HTTPError? {
        var mapped = problem(for: error)
        mapped?.cause = error.description
        return mapped
    }

    private static func problem(for error: PostgresError) -> HTTPError? {
        switch error.kind {
        case .poolTimeout:
            return .unavailable(retryAfter: 1, detail: "the service is busy; retry shortly")
        case .connection, .poolClosed, .lostBeforeCommit:
            return .unavailable(retryAfter: 2, detail: "the database is unavailable")
        case .outcomeUnknown, .committedUnanswered:
            // Never a guess: the client retries with the same Idempotency-Key, which replays
            // the write if it was stored and makes it otherwise, exactly once.
            var error = HTTPError.unavailable(
                retryAfter: 2, detail: "the database connection broke as the write committed; whether it was stored is not known: retry with the same Idempotency-Key")
            error.code = "outcome_unknown"
            return error
        case .server where error.sqlState == .insufficientPrivilege:
            return .forbidden(detail: "you may not change this")
        case .server where error.sqlState == .sessionEnded:
            return .unauthorized(detail: "the session has ended; sign in again", challenge: #"Bearer error="invalid_token""#)
        case .server where error.sqlState == .queryCanceled:
            return .unavailable(retryAfter: 1, detail: "the request took too long")
        case .server where error.isConnectionLost:
            return .unavailable(retryAfter: 2, detail: "the database is unavailable")
        default:
            return nil  // a bug: the router logs it with the request id and answers 500
        }
    }
}

extension SQLState {
    /// `app.require_session`: the access token's session was ended (logout, logout-all, a
    /// password change, or a refresh token's reuse).
    static let sessionEnded = SQLState("CH002")
}
