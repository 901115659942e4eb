/// A complete response. The server sets `Content-Length` and `Date` itself.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    /// The pattern the router matched, read by the logging and metrics middleware (which wrap
    /// the router and so cannot see the route on the request they passed in).
    public internal(set) var route: String?

    /// The cause of a problem response (`HTTPError.cause`), for the access log; never sent.
    public internal(set) var cause: String?

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The same response naming `path` as what it created (`Location`, RFC 9110 §10.2.2).
    public func located(at path: String) -> HTTPResponse {
        var located = self
        located.headers.set("Location", path)
        return located
    }

    /// A JSON body, already encoded.
    public static func json(_ status: Int, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: contentType("application/json; charset=utf-8"), body: body)
    }

    /// With room for the few fields the middleware adds on the way out (ETag, request id).
    private static func contentType(_ value: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(4)
        headers.add("Content-Type", value)
        return headers
    }

    /// A plain-text body, or another textual type such as the Prometheus exposition format.
    public static func text(
        _ status: Int,
        _ text: String,
        contentType: String = "text/plain; charset=utf-8"
    ) -> HTTPResponse {
        HTTPResponse(status: status, headers: Self.contentType(contentType), body: Array(text.utf8))
    }

    /// A response without a body, such as 204 or 304.
    public static func empty(_ status: Int, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers)
    }
}
