/// An error a handler throws to answer with an RFC 9457 problem response. `code` is the stable,
/// machine-readable part; `detail` is for people and must not carry internals.
public struct HTTPError: Error, Sendable {
    public var status: Int
    public var code: String
    public var detail: String
    public var headers: HTTPHeaders
    /// What went wrong underneath, for the access log only: never sent to the client.
    public var cause: String?

    public init(_ status: Int, code: String, detail: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers
    }
}

extension HTTPError {
    public static func badRequest(code: String = "bad_request", detail: String) -> HTTPError {
        HTTPError(400, code: code, detail: detail)
    }

    public static func unauthorized(
        code: String = "unauthorized",
        detail: String = "authentication is required",
        challenge: String = "Bearer"
    ) -> HTTPError {
        HTTPError(401, code: code, detail: detail, headers: ["WWW-Authenticate": challenge])
    }

    public static func forbidden(code: String = "forbidden", detail: String = "not allowed") -> HTTPError {
        HTTPError(403, code: code, detail: detail)
    }

    public static func notFound(code: String = "not_found", detail: String = "no such resource") -> HTTPError {
        HTTPError(404, code: code, detail: detail)
    }

    public static func methodNotAllowed(allow: [HTTPMethod]) -> HTTPError {
        let names = allow.map(\.rawValue).joined(separator: ", ")
        return HTTPError(
            405, code: "method_not_allowed",
            detail: "this resource supports \(names)",
            headers: ["Allow": names])
    }

    public static func requestTimeout() -> HTTPError {
        HTTPError(408, code: "request_timeout", detail: "the request took too long to arrive")
    }

    public static func conflict(code: String, detail: String) -> HTTPError {
        HTTPError(409, code: code, detail: detail)
    }

    public static func payloadTooLarge(limit: Int) -> HTTPError {
        HTTPError(413, code: "payload_too_large", detail: "the request body exceeds \(limit) bytes")
    }

    public static func uriTooLong(limit: Int) -> HTTPError {
        HTTPError(414, code: "uri_too_long", detail: "the request target exceeds \(limit) bytes")
    }

    public static func unsupportedMediaType(detail: String = "expected application/json") -> HTTPError {
        HTTPError(415, code: "unsupported_media_type", detail: detail)
    }

    public static func unprocessable(code: String = "validation_failed", detail: String) -> HTTPError {
        HTTPError(422, code: code, detail: detail)
    }

    public static func tooManyRequests(retryAfter seconds: Int, detail: String = "slow down") -> HTTPError {
        HTTPError(429, code: "rate_limited", detail: detail, headers: ["Retry-After": String(seconds)])
    }

    /// The answer to an unexpected error: says nothing about what went wrong.
    public static func `internal`() -> HTTPError {
        HTTPError(500, code: "internal", detail: "an unexpected error occurred")
    }

    public static func notImplemented(detail: String) -> HTTPError {
        HTTPError(501, code: "not_implemented", detail: detail)
    }

    public static func unavailable(retryAfter seconds: Int, detail: String = "try again shortly") -> HTTPError {
        HTTPError(503, code: "unavailable", detail: detail, headers: ["Retry-After": String(seconds)])
    }
}
