/// A request handler. Handlers are synchronous and run on a server thread, where blocking (on a
/// database, say) is expected.
public typealias HTTPHandler = @Sendable (HTTPRequest) throws -> HTTPResponse

/// Code that wraps every request: it may change the request, answer on its own, or call `next`
/// and change the response.
public protocol HTTPMiddleware: Sendable {
    func handle(_ request: HTTPRequest, next: HTTPHandler) throws -> HTTPResponse
}

extension Array where Element == any HTTPMiddleware {
    /// Folds the middleware around `handler`; the first element is the outermost.
    func wrapping(_ handler: @escaping HTTPHandler) -> HTTPHandler {
        reversed().reduce(handler) { next, middleware in
            { request in try middleware.handle(request, next: next) }
        }
    }
}
