import Observability

extension Problem {
    /// The answer to an error a handler threw. Anything but an `HTTPError` is a fault the
    /// response says nothing about, so its cause is logged here, with the request's id and route.
    static func response(forThrown error: any Error, by request: HTTPRequest, logger: Logger) -> HTTPResponse {
        if !(error is HTTPError) {
            logger.error("handler failed", [
                "requestId": .string(request.requestID),
                "route": .string(request.route),
                "error": .string(String(describing: error)),
            ])
        }
        return response(for: error, requestID: request.requestID)
    }
}
