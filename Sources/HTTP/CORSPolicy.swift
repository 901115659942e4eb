/// Which web origins may call the API from a browser (CORS), and what they are told. A
/// preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) from an allowed
/// origin is answered 204 with the methods and request headers the API takes; every other
/// response to an allowed origin names it in `Access-Control-Allow-Origin` and exposes the
/// headers a client reads (`ETag`, `Location`, the rate-limit fields, `Retry-After`,
/// `X-Request-ID`, `Idempotent-Replayed`). Other origins get no CORS headers, so a browser keeps
/// the answer from their pages, and their preflights are refused. Tokens travel in
/// `Authorization`, not cookies, so credentials are never allowed.
public struct CORSPolicy: Sendable, Equatable {
    /// Exact origins (`https://app.example.com`), or every origin when it holds `*`.
    public let allowedOrigins: Set<String>

    public static let methods = "GET, HEAD, POST, PUT, PATCH, DELETE"
    public static let requestHeaders = "Authorization, Content-Type, Idempotency-Key, If-None-Match, X-Request-ID"
    public static let exposedHeaders = "ETag, Location, RateLimit, RateLimit-Policy, Retry-After, X-Request-ID, Idempotent-Replayed"
    /// How long a browser may keep a preflight's answer, in seconds.
    public static let maxAge = "600"

    /// Nil when `origins` holds something that is not an origin (`scheme://host[:port]`,
    /// lowercase, nothing after) or `*`.
    public init?(allowedOrigins origins: [String]) {
        guard origins.allSatisfy({ $0 == "*" || Self.isOrigin($0) }) else { return nil }
        allowedOrigins = Set(origins)
    }

    public func allows(_ origin: String) -> Bool {
        allowedOrigins.contains("*") || allowedOrigins.contains(origin)
    }

    /// The answer to a CORS preflight, or nil when `request` is not one.
    public func preflight(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.method == .OPTIONS, let origin = request.headers["Origin"],
              request.headers["Access-Control-Request-Method"] != nil
        else { return nil }
        guard allows(origin) else {
            var refused = Problem.response(
                for: HTTPError.forbidden(detail: "the origin \(origin.prefix(200)) may not call this API from a browser"),
                requestID: request.requestID)
            refused.headers.set("Vary", "Origin")
            return refused
        }
        var headers = HTTPHeaders()
        headers.set("Access-Control-Allow-Origin", origin)
        headers.set("Access-Control-Allow-Methods", Self.methods)
        headers.set("Access-Control-Allow-Headers", Self.requestHeaders)
        headers.set("Access-Control-Max-Age", Self.maxAge)
        headers.set("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
        return .empty(204, headers: headers)
    }

    /// Marks a response to a request from an allowed origin as readable by its page.
    func mark(_ response: inout HTTPResponse, for request: HTTPRequest) {
        guard response.headers["Vary"]?.contains("Origin") != true else { return }  // a preflight's
        response.headers.add("Vary", "Origin")
        guard let origin = request.headers["Origin"], allows(origin) else { return }
        response.headers.set("Access-Control-Allow-Origin", origin)
        response.headers.set("Access-Control-Expose-Headers", Self.exposedHeaders)
    }

    /// `scheme://host[:port]` with a lowercase http(s) scheme and host, as browsers send it.
    static func isOrigin(_ text: String) -> Bool {
        for scheme in ["https://", "http://"] where text.hasPrefix(scheme) {
            let rest = text.dropFirst(scheme.count)
            return !rest.isEmpty && rest.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                     UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
                    true
                default:
                    false
                }
            }
        }
        return false
    }
}

/// Applies a `CORSPolicy` to every response.
public struct CORSMiddleware: HTTPMiddleware {
    let policy: CORSPolicy

    public init(policy: CORSPolicy) {
        self.policy = policy
    }

    public func didHandle(_ request: HTTPRequest, response: inout HTTPResponse) {
        policy.mark(&response, for: request)
    }
}
