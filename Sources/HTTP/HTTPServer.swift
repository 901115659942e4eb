import CMicroHTTPD
import EventLoops
import Observability
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd: keep-alive, pipelining, bounded connections, heads,
/// bodies and request time, and graceful shutdown.
///
/// Concurrency: event loops, one per core by default, each running a libmicrohttpd daemon in its
/// external-epoll mode. One listening socket (`Listener`) hands each new connection to the daemon
/// with the fewest, so they spread evenly over the loops. When a request is complete its connection is suspended and the handler
/// runs as a task on the same loop, awaiting the database without blocking; its answer resumes
/// the connection. One wake-up thus serves every connection and database socket of that loop that
/// became ready meanwhile, with no thread per connection and no hand-off between threads.
/// Handlers must never block a loop: blocking work goes to `BlockingWork`.
public final class HTTPServer: Sendable {
    private struct Running {
        var listener: Listener
        var daemons: [ServedDaemon]
        var watchdog: DeadlineWatchdog
    }

    private enum Phase {
        case idle
        case running(Running)
        case stopped
    }

    private let core: ServerCore
    private let loops: [EventLoop]
    private let phase = Mutex(Phase.idle)
    /// Stopped with the server when the server made them.
    private let ownsLoops: Bool

    /// - Parameter eventLoops: the loops to serve on; share them with a `PostgresPool` so that
    ///   handlers and their queries wait on the same threads. Without them the server makes
    ///   `configuration.eventLoops` of its own.
    public init(
        configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
        middleware: [any HTTPMiddleware] = [],
        logger: Logger = Logger(label: "http"),
        eventLoops: [EventLoop]? = nil,
        handler: @escaping HTTPHandler
    ) throws {
        if let eventLoops, !eventLoops.isEmpty {
            loops = eventLoops
            ownsLoops = false
        } else {
            loops = try (0..<max(1, configuration.eventLoops)).map { _ in try EventLoop(name: "http") }
            ownsLoops = true
        }
        core = ServerCore(configuration: configuration, middleware: middleware, logger: logger, handler: handler)
    }

    public var configuration: HTTPServerConfiguration { core.configuration }

    /// The bound port once started (the chosen one when configured with port 0), otherwise the
    /// configured port.
    public var port: Int {
        phase.withLock { phase in
            if case .running(let running) = phase { return running.listener.port }
            return core.configuration.port
        }
    }

    /// Connections open now.
    public var openConnections: Int { core.deadlines.count }

    /// Requests begun and not yet completed.
    public var requestsInFlight: Int { core.requestsInFlight.load(ordering: .relaxed) }

    /// Binds and starts serving, a daemon on each event loop; returns once listening.
    public func start() throws {
        let configuration = core.configuration
        try Self.validate(configuration)
        try phase.withLock { phase in
            guard case .idle = phase else { throw HTTPServerError.alreadyStarted }
            var started: [ServedDaemon] = []
            let listener: Listener
            do {
                for loop in loops {
                    started.append(try ServedDaemon.start(configuration, core: core, loop: loop))
                }
                listener = try Listener(configuration, core: core, daemons: started, loop: loops[0])
                try listener.start()
            } catch {
                for served in started { served.stop() }
                throw error
            }
            let watchdog = DeadlineWatchdog(
                deadlines: core.deadlines, limit: configuration.requestTimeout, logger: core.logger)
            phase = .running(Running(listener: listener, daemons: started, watchdog: watchdog))
        }
        core.logger.info("listening", ["host": .string(configuration.host), "port": .int(port), "eventLoops": .int(loops.count)])
    }

    /// Stops accepting connections, lets requests in flight finish until `deadline` (default:
    /// now plus `shutdownGrace`), then closes every connection and stops. Responses sent while
    /// draining carry `Connection: close`. Handlers still running at the deadline are left to
    /// finish on their loop; their answers have no connection left to go to.
    public func shutdown(deadline: ContinuousClock.Instant? = nil) {
        let deadline = deadline ?? .now + core.configuration.shutdownGrace
        let taken: Running? = phase.withLock { phase in
            guard case .running(let running) = phase else { return nil }
            phase = .stopped
            return running
        }
        guard let running = taken else { return }
        core.startDraining()
        running.listener.stop()
        let unfinished = core.waitUntilDrained(by: deadline)
        for served in running.daemons { served.stop() }
        running.watchdog.stop()
        if ownsLoops { loops.forEach { $0.stop() } }
        core.logger.info("stopped", ["unfinishedRequests": .int(unfinished)])
    }

    private static func validate(_ configuration: HTTPServerConfiguration) throws {
        func require(_ condition: Bool, _ reason: String) throws {
            if !condition { throw HTTPServerError.invalidConfiguration(reason) }
        }
        try require((0...65535).contains(configuration.port), "port must be 0...65535")
        try require(configuration.connectionLimit > 0, "connectionLimit must be positive")
        try require(configuration.perIPConnectionLimit >= 0, "perIPConnectionLimit must not be negative")
        try require(configuration.connectionTimeout > .zero, "connectionTimeout must be positive")
        try require(configuration.requestTimeout > .zero, "requestTimeout must be positive")
        try require(configuration.maxURLBytes > 0, "maxURLBytes must be positive")
        try require(configuration.maxBodyBytes >= 0, "maxBodyBytes must not be negative")
        try require(configuration.connectionMemoryLimit >= 4096, "connectionMemoryLimit must be at least 4096")
        try require(!configuration.proxyProtocol || !configuration.trustedProxies.isEmpty,
                    "proxyProtocol needs trustedProxies: only a listed proxy may say who a client is")
        try require(configuration.proxyHeaderTimeout > .zero, "proxyHeaderTimeout must be positive")
    }
}
