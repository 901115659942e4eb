import Observability

/// Counts every request into `Metrics` by route pattern, method and status.
public struct MetricsMiddleware: HTTPMiddleware {
    private let metrics: Metrics

    public init(metrics: Metrics) {
        self.metrics = metrics
    }

    public func willHandle(_ request: HTTPRequest) {
        metrics.requestEntered()
    }

    public func didHandle(_ request: HTTPRequest, response: inout HTTPResponse) {
        metrics.requestLeft()
        metrics.observeRequest(
            route: response.route ?? request.route,
            method: request.unknownMethod == nil ? request.method.rawValue : "OTHER",
            status: response.status,
            seconds: request.receivedAt.duration(to: .now).seconds)
    }
}
