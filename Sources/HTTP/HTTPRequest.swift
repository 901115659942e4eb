/// One request as handlers see it: decoded, bounded, and complete (the body is fully read).
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The percent-decoded path, without the query.
    public var path: String
    /// The first value of each query parameter, percent-decoded (`+` reads as a space).
    public var query: [String: String]
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The client's IP address as text.
    public var remoteAddress: String
    /// Filled by the router from the matched pattern.
    public var pathParameters: [String: String]
    /// The client's `X-Request-ID` when it is sane, otherwise a generated one.
    public var requestID: String
    /// The matched pattern, such as `/v1/posts/:id`, or `unmatched`: a bounded label for logs
    /// and metrics.
    public var route: String
    /// When the server had the request's head: where its duration is measured from.
    public var receivedAt: ContinuousClock.Instant

    /// Set by the server when it refuses the request itself; the refusal still runs through the
    /// middleware so that it is logged, counted and tagged like any other response.
    var rejection: HTTPError?
    /// The method as sent, when it is not one of `HTTPMethod` (such a request is always refused).
    var unknownMethod: String?

    /// The method for logs: as sent, even when unknown.
    var methodLabel: String { unknownMethod ?? method.rawValue }

    public init(
        method: HTTPMethod,
        path: String,
        query: [String: String] = [:],
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        remoteAddress: String = "127.0.0.1",
        pathParameters: [String: String] = [:],
        requestID: String = RequestID.generate(),
        route: String = HTTPRequest.unmatchedRoute,
        receivedAt: ContinuousClock.Instant = .now
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.pathParameters = pathParameters
        self.requestID = requestID
        self.route = route
        self.receivedAt = receivedAt
    }

    /// The route label of a request that matched no pattern.
    public static let unmatchedRoute = "unmatched"
}
