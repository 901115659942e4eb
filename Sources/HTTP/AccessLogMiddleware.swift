import Observability

/// One log line per request: time, level, method, route, status, durationMs, requestId, remote,
/// and a problem's cause when it has one (a 503's database error).
/// It logs the route pattern rather than the path, and never the query, headers or body, so
/// tokens and personal data stay out of the logs.
public struct AccessLogMiddleware: HTTPMiddleware {
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func didHandle(_ request: HTTPRequest, response: inout HTTPResponse) {
        let elapsed = request.receivedAt.duration(to: .now)
        let level: Logger.Level = response.status >= 500 ? .error : .info
        guard logger.isEnabled(level) else { return }
        var fields: [(String, LogValue)] = [
            ("method", .string(request.methodLabel)),
            ("route", .string(response.route ?? request.route)),
            ("status", .int(response.status)),
            ("durationMs", .double(elapsed.milliseconds)),
            ("requestId", .string(request.requestID)),
            ("remote", .string(request.remoteAddress)),
        ]
        if let cause = response.cause { fields.append(("cause", .string(cause))) }
        logger.log(level, "request", fields)
    }
}
