#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import HTTP
import TestSupport
import Testing

@Suite struct ShutdownTests {
    @Test func requestInFlightCompletesAndNewConnectionsAreRefused() throws {
        let server = try TestServer()
        let connection = try Self.sleepingRequest(1000, on: server)

        let finished = CallCounter()
        let started = ContinuousClock.now
        DispatchQueue.global().async {
            server.server.shutdown(deadline: .now + .seconds(5))
            finished.hit()
        }
        let response = try connection.readResponse(timeout: .seconds(3))
        #expect(response.status == 200)
        #expect(response.text == "slept 1000")
        #expect(response.headers["Connection"]?.lowercased() == "close")

        while finished.value == 0 && started.duration(to: .now) < .seconds(5) { usleep(1000) }
        #expect(finished.value == 1)
        // It waited for the request, not for the whole deadline.
        #expect(started.duration(to: .now) < .seconds(4))
        #expect(throws: RawConnection.Failure.self) { try server.connect() }
    }

    /// Shutdown wakes as the last request completes, however far off its deadline is.
    @Test func shutdownReturnsAsTheLastRequestCompletes() throws {
        let server = try TestServer()
        let connection = try Self.sleepingRequest(400, on: server)
        let elapsed = Self.shutdown(server, deadline: .seconds(30))
        #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(3))
        #expect(try connection.readResponse(timeout: .seconds(1)).text == "slept 400")
        #expect(server.server.requestsInFlight == 0)
    }

    /// A kept-alive connection between requests has nothing in flight: shutdown does not wait
    /// for it.
    @Test func shutdownWithNothingInFlightReturnsAtOnce() throws {
        let server = try TestServer()
        let connection = try server.send(TestServer.getHello)
        #expect(try connection.readResponse().status == 200)
        #expect(Self.shutdown(server, deadline: .seconds(30)) < .seconds(2))
        #expect(connection.waitForClose(timeout: .seconds(1)))
    }

    @Test func shutdownGivesUpAtTheDeadlineForStalledUploads() throws {
        let server = try TestServer()
        let connection = try server.connect()
        // A request that never finishes arriving.
        try connection.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\nabc")
        usleep(100_000)
        let elapsed = Self.shutdown(server, deadline: .milliseconds(300))
        #expect(elapsed >= .milliseconds(250) && elapsed < .seconds(2))
        #expect(connection.waitForClose(timeout: .seconds(1)))
    }

    /// A handler that outlives the deadline: shutdown still ends on time, closes the
    /// connection without an answer, and the handler's late answer goes nowhere.
    @Test func shutdownGivesUpAtTheDeadlineForRunningHandlers() throws {
        let server = try TestServer()
        let connection = try Self.sleepingRequest(1200, on: server)

        let elapsed = Self.shutdown(server, deadline: .milliseconds(300))
        #expect(elapsed >= .milliseconds(250) && elapsed < .seconds(1))
        #expect(connection.waitForClose(timeout: .seconds(1)))
        #expect(server.server.requestsInFlight == 0)
        // The handler finishes after the daemon is gone.
        usleep(1_200_000)
        #expect(throws: RawConnection.Failure.self) { try server.connect() }
    }

    @Test func startTwiceIsAnError() throws {
        let server = try TestServer()
        defer { server.stop() }
        #expect(throws: HTTPServerError.alreadyStarted) { try server.server.start() }
    }

    @Test func portZeroReportsTheBoundPort() throws {
        let server = try TestServer()
        defer { server.stop() }
        #expect(server.port > 0)
        #expect(try server.get("/hello").status == 200)
    }

    @Test func anIPv6AddressBindsAndAHostNameIsRefused() throws {
        let server = try TestServer(configure: { $0.host = "::1" })
        defer { server.stop() }
        #expect(server.port > 0)
        #expect(throws: HTTPServerError.invalidHost("localhost")) {
            try TestServer(configure: {
                $0.host = "localhost"
                $0.eventLoops = 1
            })
        }
    }

    /// Shuts the server down with its deadline `deadline` from now; how long that took.
    private static func shutdown(_ server: TestServer, deadline: Duration) -> Duration {
        let started = ContinuousClock.now
        server.server.shutdown(deadline: started + deadline)
        return started.duration(to: .now)
    }

    /// Sends `GET /sleep/<milliseconds>` and returns once its handler is running.
    private static func sleepingRequest(_ milliseconds: Int, on server: TestServer) throws -> RawConnection {
        let connection = try server.send("GET /sleep/\(milliseconds) HTTP/1.1\r\nHost: t\r\n\r\n")
        let waitStart = ContinuousClock.now
        while server.handled.value == 0 && waitStart.duration(to: .now) < .seconds(2) { usleep(1000) }
        #expect(server.handled.value == 1)
        return connection
    }
}
