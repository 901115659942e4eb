/// Counts every request into `Metrics` by route pattern, method and status.
public struct MetricsMiddleware: HTTPMiddleware {
    private let metrics: Metrics

    public init(metrics: Metrics) {
        self.metrics = metrics
    }

    public func willHandle(_ request: HTTPRequest) {
        metrics.inFlight.add(1, ordering: .relaxed)
    }

    public func didHandle(_ request: HTTPRequest, response: inout HTTPResponse) {
        metrics.inFlight.subtract(1, ordering: .relaxed)
        metrics.observeRequest(
            route: response.route ?? request.route,
            method: request.unknownMethod == nil ? request.method.rawValue : "OTHER",
            status: response.status,
            seconds: request.receivedAt.duration(to: .now).seconds)
    }
}
