import Foundation
import HTTP
import TestSupport
import Testing

/// What operators read: the pool's gauges on `/metrics`. Through the router: these gauges come
/// from the pool, not from the server's request metrics, which HTTPTests cover.
@Suite struct OpsTests {
    /// An operator sizing the pool needs to see it: its bound, and how much of it requests use.
    @Test func metricsShowThePool() async throws {
        let app = try await TestService.started(over: .router) { $0.pool.maxConnections = 7 }
        #expect(try await app.client.get("/readyz").status == 200)
        let metrics = try await app.client.get("/metrics")
        #expect(metrics.status == 200)
        let lines = Set(metrics.text.split(separator: "\n").map(String.init))
        #expect(lines.contains("db_pool_max 7"))
        #expect(lines.contains("db_pool_in_use 0"))
        #expect(lines.contains("db_pool_waiting 0"))
        #expect(lines.contains("db_pool_lease_timeouts 0"))
        // `/readyz` has opened a connection, which is idle again.
        #expect(lines.contains { $0.hasPrefix("db_pool_connections ") && $0 != "db_pool_connections 0" })
    }

    /// Left to its default, the pool is three connections per core, at most 32 (README).
    /// Shutting down behind a load balancer: `/readyz` fails first, so the balancer stops
    /// sending new connections, while every other request is still served.
    @Test func anInstanceThatStopsBeingReadyStillServes() async throws {
        let app = try await TestService.started(over: .router)
        #expect(try await app.client.get("/readyz").status == 200)
        app.service.stopBeingReady()
        let readiness = try await app.client.get("/readyz")
        #expect(readiness.status == 503)
        #expect(readiness.json["detail"].string == "this instance is shutting down")
        #expect(try await app.client.get("/v1/posts").status == 200)
        #expect(try await app.client.get("/healthz").status == 200)
    }

    /// With a listener of its own, `/metrics` is served there and nowhere on the service's port.
    @Test func metricsCanLiveOnAPortOfTheirOwn() async throws {
        let app = try await TestService.started(over: .socket) {
            var metrics = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
            metrics.connectionLimit = 8
            $0.metricsHTTP = metrics
        }
        #expect(try await app.client.get("/metrics").status == 404)
        #expect(try await app.client.get("/readyz").status == 200)
        let port = try #require(app.service.metricsPort)
        let connection = try RawConnection(port: port)
        try connection.send("GET /metrics HTTP/1.1\r\nHost: metrics\r\nConnection: close\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 200)
        #expect(response.text.contains("db_pool_max "))
        let other = try RawConnection(port: port)
        try other.send("GET /v1/posts HTTP/1.1\r\nHost: metrics\r\nConnection: close\r\n\r\n")
        #expect(try other.readResponse().status == 404)
    }

    @Test func theDefaultPoolIsThreePerCore() async throws {
        let app = try await TestService.started(over: .router) { $0.pool = .init(leaseTimeout: .seconds(5)) }
        let metrics = try await app.client.get("/metrics")
        let expected = min(3 * ProcessInfo.processInfo.activeProcessorCount, 32)
        #expect(metrics.text.split(separator: "\n").contains("db_pool_max \(expected)"))
    }
}
