#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTP
import Testing

@Suite struct TimeoutTests {
    /// Clients that send a byte every 100 ms never fall silent, so only the whole-request
    /// deadline stops them; meanwhile another client keeps being served.
    @Test func slowDripIsCutWhileOthersAreServed() throws {
        let server = try Self.server(requestTimeout: .milliseconds(800), connectionTimeout: .seconds(10))
        defer { server.stop() }

        let headerDrip = try server.send("GET /hello HTTP/1.1\r\nHost: t\r\nX-Slow: ")
        let bodyDrip = try server.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 500\r\n\r\n")
        let control = try server.connect()

        let started = ContinuousClock.now
        var headerCutAt: Duration?
        var bodyCutAt: Duration?
        var served = 0
        while started.duration(to: .now) < .seconds(3) && (headerCutAt == nil || bodyCutAt == nil) {
            if headerCutAt == nil {
                do { try headerDrip.send("a") } catch { headerCutAt = started.duration(to: .now) }
            }
            if bodyCutAt == nil {
                do { try bodyDrip.send("b") } catch { bodyCutAt = started.duration(to: .now) }
            }
            try control.send(TestServer.getHello)
            if try control.readResponse(timeout: .seconds(1)).status == 200 { served += 1 }
            usleep(100_000)
        }
        // A send fails only once the peer is gone; the close itself came a little earlier.
        let header = try #require(headerCutAt, "header drip was never cut")
        let body = try #require(bodyCutAt, "body drip was never cut")
        #expect(header >= .milliseconds(700) && header < .milliseconds(2500))
        #expect(body >= .milliseconds(700) && body < .milliseconds(2500))
        #expect(served >= 5)
        #expect(server.handled.value == served)
    }

    @Test func silentConnectionIsClosedByTheIdleTimeout() throws {
        let server = try Self.server(requestTimeout: .seconds(30), connectionTimeout: .seconds(1))
        defer { server.stop() }
        let connection = try server.send("GET /hel")
        let started = ContinuousClock.now
        #expect(connection.waitForClose(timeout: .seconds(3)))
        #expect(started.duration(to: .now) >= .milliseconds(500))
    }

    @Test func slowHandlerIsNotCutByTheRequestDeadline() throws {
        let server = try Self.server(requestTimeout: .milliseconds(400))
        defer { server.stop() }
        // The clock stops while the handler runs.
        let response = try server.get("/sleep/900")
        #expect(response.status == 200)
        #expect(response.text == "slept 900")
    }

    /// libmicrohttpd's idle timeout measures silence on the socket; a handler that takes longer
    /// than it still gets its answer to the client.
    @Test func slowHandlerIsNotCutByTheIdleTimeout() throws {
        let server = try Self.server(connectionTimeout: .seconds(1))
        defer { server.stop() }
        let connection = try server.send("GET /sleep/2500 HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try connection.readResponse(timeout: .seconds(10))
        #expect(response.status == 200)
        #expect(response.text == "slept 2500")
    }

    /// A test server with these timeouts; the test server's own are five seconds each.
    private static func server(requestTimeout: Duration = .seconds(5), connectionTimeout: Duration = .seconds(5)) throws -> TestServer {
        try TestServer(configure: {
            $0.requestTimeout = requestTimeout
            $0.connectionTimeout = connectionTimeout
        })
    }
}
