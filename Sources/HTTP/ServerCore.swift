import CMicroHTTPD
import Dispatch
import Observability
import Synchronization

/// What every daemon of a server shares: the configuration, the middleware, the handler and the
/// counters shutdown waits on. Immutable apart from atomics and `ConnectionDeadlines`, so every
/// event loop may use it at once.
final class ServerCore: Sendable {
    let configuration: HTTPServerConfiguration
    let logger: Logger
    let middleware: [any HTTPMiddleware]
    let handler: HTTPHandler
    let deadlines = ConnectionDeadlines()
    /// Requests between their request line and their completion: what shutdown waits for.
    let requestsInFlight = Atomic<Int>(0)
    /// Set once shutdown starts: responses then close their connection.
    let draining = Atomic<Bool>(false)
    /// Signalled when the count in flight falls to zero while draining (see
    /// `ServerCore+Draining`).
    let drained = DispatchSemaphore(value: 0)

    init(configuration: HTTPServerConfiguration, middleware: [any HTTPMiddleware], logger: Logger, handler: @escaping HTTPHandler) {
        self.configuration = configuration
        self.logger = logger
        self.middleware = middleware
        self.handler = handler
    }

    /// Runs the handler between the middleware's hooks. Never throws: an error becomes a
    /// problem response.
    func run(_ request: HTTPRequest) async -> HTTPResponse {
        for step in middleware { step.willHandle(request) }
        var response: HTTPResponse
        do {
            response = try await handler(request)
        } catch {
            response = Problem.response(forThrown: error, by: request, logger: logger)
        }
        return finish(request, response)
    }

    /// The answer to a request the server refuses itself, at once: the middleware sees it like
    /// any other, but no handler runs, so nothing needs awaiting.
    func refuse(_ request: HTTPRequest, _ rejection: HTTPError) -> HTTPResponse {
        for step in middleware { step.willHandle(request) }
        return finish(request, Problem.response(for: rejection, requestID: request.requestID))
    }

    /// The middleware's `didHandle` hooks, innermost first.
    private func finish(_ request: HTTPRequest, _ response: HTTPResponse) -> HTTPResponse {
        var response = response
        for step in middleware.reversed() { step.didHandle(request, response: &response) }
        return response
    }
}
