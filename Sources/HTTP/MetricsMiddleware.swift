/// Counts every request into `Metrics` by route pattern, method and status.
public struct MetricsMiddleware: HTTPMiddleware {
    private let metrics: Metrics

    public init(metrics: Metrics) {
        self.metrics = metrics
    }

    public func handle(_ request: HTTPRequest, next: HTTPHandler) throws -> HTTPResponse {
        let started = ContinuousClock.now
        metrics.inFlight.add(1, ordering: .relaxed)
        defer { metrics.inFlight.subtract(1, ordering: .relaxed) }
        let response = try next(request)
        metrics.observeRequest(
            route: response.route ?? request.route,
            method: request.unknownMethod == nil ? request.method.rawValue : "OTHER",
            status: response.status,
            seconds: started.duration(to: .now).seconds)
        return response
    }
}
