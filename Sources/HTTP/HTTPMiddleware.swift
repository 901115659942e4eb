/// A request handler. Handlers run on the server's event loop: they await the database and
/// anything else slow, and never block the thread (blocking work goes to `BlockingWork`).
public typealias HTTPHandler = @Sendable (HTTPRequest) async throws -> HTTPResponse

/// Code that sees every request and its response: the server calls `willHandle` before the
/// handler runs and `didHandle` with its answer, also for requests the server refuses itself.
/// Both run on the event loop and must be quick.
public protocol HTTPMiddleware: Sendable {
    func willHandle(_ request: HTTPRequest)
    /// May change the response.
    func didHandle(_ request: HTTPRequest, response: inout HTTPResponse)
}

extension HTTPMiddleware {
    public func willHandle(_ request: HTTPRequest) {}
}
