import Foundation
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

    @Test func theDefaultPoolIsThreePerCore() async throws {
        let app = try await TestService.started(over: .router) { $0.pool = .init(leaseTimeout: .seconds(5)) }
        let metrics = try await app.client.get("/metrics")
        let expected = min(3 * ProcessInfo.processInfo.activeProcessorCount, 32)
        #expect(metrics.text.split(separator: "\n").contains("db_pool_max \(expected)"))
    }
}
