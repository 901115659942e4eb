#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTP
import TestSupport
import Observability
import Synchronization

/// Counts handler calls, so a test can tell whether a request reached its handler.
final class CallCounter: Sendable {
    private let count = Atomic<Int>(0)
    func hit() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// Collects log lines.
final class LineSink: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// A server on an ephemeral port with the routes the socket tests lean on.
final class TestServer: Sendable {
    let server: HTTPServer
    let handled = CallCounter()
    let accessLog = LineSink()
    /// The server's own log, errors only.
    let serverLog = LineSink()

    var port: Int { server.port }

    /// - Parameter handler: serves every request instead of the router and its routes.
    init(
        configure: (inout HTTPServerConfiguration) -> Void = { _ in },
        extraRoutes: (Router) -> Void = { _ in },
        handler: HTTPHandler? = nil
    ) throws {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.maxBodyBytes = 1024
        configuration.connectionTimeout = .seconds(5)
        configuration.requestTimeout = .seconds(5)
        configure(&configuration)

        let router = Router(logger: Logger(label: "test", minimumLevel: .error, sink: { _ in }))
        let handled = self.handled
        router.add(.GET, "/hello") { _ in
            handled.hit()
            return .text(200, "hello")
        }
        router.add(.POST, "/echo") { request in
            handled.hit()
            return .json(200, request.body)
        }
        router.add(.GET, "/sleep/:ms") { request in
            handled.hit()
            let milliseconds = Int(request.pathParameters["ms"] ?? "0") ?? 0
            try await Task.sleep(for: .milliseconds(milliseconds))
            return .text(200, "slept \(milliseconds)")
        }
        extraRoutes(router)

        let accessLog = self.accessLog
        let serverLog = self.serverLog
        server = try HTTPServer(
            configuration: configuration,
            middleware: [
                RequestIDMiddleware(),
                AccessLogMiddleware(logger: Logger(label: "access", sink: { accessLog.append($0) })),
            ],
            logger: Logger(label: "http", minimumLevel: .error, sink: { serverLog.append($0) }),
            handler: handler ?? router.respond)
        try server.start()
    }

    func stop() {
        server.shutdown(deadline: .now + .seconds(2))
    }

    /// The request most tests send to see that the server still serves.
    static let getHello = "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n"

    func connect() throws -> RawConnection {
        try RawConnection(port: port)
    }

    /// A fresh connection that has sent `request`.
    func send(_ request: String) throws -> RawConnection {
        try send(Array(request.utf8))
    }

    func send(_ bytes: [UInt8]) throws -> RawConnection {
        let connection = try connect()
        try connection.send(bytes)
        return connection
    }

    /// One GET on a fresh connection.
    func get(_ path: String, headers: String = "") throws -> RawConnection.Response {
        try send("GET \(path) HTTP/1.1\r\nHost: test\r\n\(headers)\r\n").readResponse()
    }

    /// Waits until libmicrohttpd has released every request and connection, or the timeout.
    func settles(timeout: Duration = .seconds(3)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if server.requestsInFlight == 0 && server.openConnections == 0 { return true }
            usleep(10_000)
        }
        return false
    }
}
