/// Every problem `code` the service answers with, and what it means. A problem's `type` is
/// `/problems/<code>` (RFC 9457 §3.1.1, a reference relative to the server), and
/// `GET /problems/{code}` answers with the entry, so a client or a person can look a code up
/// where it met it. `openapi.yaml` lists the same codes.
public struct ProblemType: Sendable, Equatable {
    public let code: String
    /// The status it comes with.
    public let status: Int
    public let summary: String

    /// The `type` URI of the problem with `code`.
    public static func uri(for code: String) -> String { "/problems/" + code }

    public static func named(_ code: String) -> ProblemType? { all.first { $0.code == code } }

    public static let all: [ProblemType] = [
        .init("bad_request", 400, "The request is malformed: its line, a header field, its target or its body's framing."),
        .init("malformed_json", 400, "The body is not JSON, nests too deep, or names a member twice."),
        .init("invalid_parameter", 400, "A query parameter or header value is malformed or out of range."),
        .init("invalid_cursor", 400, "A paging cursor is malformed, expired, or from another list."),
        .init("unauthorized", 401, "No valid credentials: the access token is missing or invalid, its session has ended, or the username or password is wrong."),
        .init("token_expired", 401, "The access token has expired: get a new one with the refresh token."),
        .init("forbidden", 403, "Signed in, but not allowed to do this."),
        .init("wrong_password", 403, "The current password given with a password change is wrong."),
        .init("blocked", 403, "A block between you and this user refuses it: neither can follow the other or like, comment on or reply to the other's posts and comments."),
        .init("not_found", 404, "No such resource."),
        .init("method_not_allowed", 405, "The path exists but does not take this method: `Allow` lists those it takes."),
        .init("request_timeout", 408, "The request took too long to arrive."),
        .init("username_taken", 409, "That username is taken."),
        .init("idempotency_conflict", 409, "The first request with this `Idempotency-Key` is still running, or did not complete: retry later."),
        .init("payload_too_large", 413, "The body is larger than the service accepts."),
        .init("uri_too_long", 414, "The request target is longer than the service accepts."),
        .init("unsupported_media_type", 415, "The body is not declared `application/json`."),
        .init("validation_failed", 422, "A field of the body is missing, of the wrong type, or out of range."),
        .init("idempotency_key_reused", 422, "This `Idempotency-Key` was used for a different request."),
        .init("rate_limited", 429, "Too many requests: wait `Retry-After` seconds; `RateLimit` says which budget ran out."),
        .init("internal", 500, "An unexpected error; the request id finds it in the service's log."),
        .init("not_implemented", 501, "The method is not one the service supports."),
        .init("unavailable", 503, "The database is unavailable or the service is busy: retry after `Retry-After` seconds. Nothing was written."),
        .init("outcome_unknown", 503, "A write's database connection broke as it committed, and whether it was stored could not be learned: retry with the same `Idempotency-Key`, which stores it exactly once."),
    ]

    private init(_ code: String, _ status: Int, _ summary: String) {
        self.code = code
        self.status = status
        self.summary = summary
    }
}
