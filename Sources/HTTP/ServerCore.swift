import CMicroHTTPD
import Synchronization

/// What the C callbacks reach through their context pointer: the configuration, the composed
/// middleware chain and the counters shutdown waits on. Immutable apart from atomics and
/// `ConnectionDeadlines`, so every libmicrohttpd thread may use it at once.
final class ServerCore: Sendable {
    let configuration: HTTPServerConfiguration
    let logger: Logger
    /// Middleware around the handler; the innermost step never throws.
    let chain: HTTPHandler
    let deadlines = ConnectionDeadlines()
    /// Requests between their request line and their completion: what shutdown waits for.
    let requestsInFlight = Atomic<Int>(0)
    /// Set once shutdown starts: responses then close their connection.
    let draining = Atomic<Bool>(false)

    init(configuration: HTTPServerConfiguration, middleware: [any HTTPMiddleware], logger: Logger, handler: @escaping HTTPHandler) {
        self.configuration = configuration
        self.logger = logger
        let terminal: HTTPHandler = { request in
            if let rejection = request.rejection {
                return Problem.response(for: rejection, requestID: request.requestID)
            }
            do {
                return try handler(request)
            } catch {
                ServerCore.logFailure(error, request: request, logger: logger)
                return Problem.response(for: error, requestID: request.requestID)
            }
        }
        chain = middleware.wrapping(terminal)
    }

    /// Runs the middleware chain; an error thrown by middleware itself becomes a problem too.
    func run(_ request: HTTPRequest) -> HTTPResponse {
        do {
            return try chain(request)
        } catch {
            ServerCore.logFailure(error, request: request, logger: logger)
            return Problem.response(for: error, requestID: request.requestID)
        }
    }

    static func logFailure(_ error: any Error, request: HTTPRequest, logger: Logger) {
        guard !(error is HTTPError) else { return }
        logger.error("handler failed", [
            "requestId": .string(request.requestID),
            "route": .string(request.route),
            "error": .string(String(describing: error)),
        ])
    }
}
