import HTTP
import Observability
import Postgres

/// Liveness, readiness and metrics (with the pool's gauges), for orchestrators and Prometheus.
struct OpsRoutes: Sendable {
    let pool: PostgresPool
    let gate: Readiness
    let metrics: Metrics

    /// Registers the pools' and the replicas' gauges with the metrics this group serves.
    init(pool: PostgresPool, replicas: Replicas?, readiness: Readiness, metrics: Metrics) {
        self.pool = pool
        gate = readiness
        self.metrics = metrics
        PoolMetrics.register(pool, on: metrics)
        if let replicas { ReplicaMetrics.register(replicas, on: metrics) }
    }

    func health(_ request: HTTPRequest) async throws -> HTTPResponse {
        .json(200, Array(#"{"status":"ok"}"#.utf8))
    }

    func readiness(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard gate.isReady else {
            throw HTTPError.unavailable(retryAfter: 1, detail: "this instance is shutting down")
        }
        do {
            try await pool.execute(as: .anonymous, readOnly: true, OpsQueries.ping)
            return .json(200, Array(#"{"status":"ready"}"#.utf8))
        } catch {
            throw HTTPError.unavailable(retryAfter: 1, detail: "the database is not reachable")
        }
    }

    func metricsPage(_ request: HTTPRequest) async throws -> HTTPResponse {
        .text(200, metrics.render(), contentType: Metrics.contentType)
    }
}

/// The pool's gauges on `/metrics`.
enum PoolMetrics {
    static func register(_ pool: PostgresPool, on metrics: Metrics) {
        metrics.registerGauge("db_pool_connections", help: "Open database connections.") {
            Double(pool.statistics.size)
        }
        metrics.registerGauge("db_pool_in_use", help: "Database connections leased to requests.") {
            Double(pool.statistics.inUse)
        }
        metrics.registerGauge("db_pool_waiting", help: "Requests waiting for a database connection.") {
            Double(pool.statistics.waiting)
        }
        metrics.registerGauge("db_pool_max", help: "The pool's bound.") {
            Double(pool.poolConfiguration.maxConnections)
        }
        metrics.registerGauge("db_pool_lease_timeouts", help: "Leases that timed out (answered 503).") {
            Double(pool.statistics.leaseTimeouts)
        }
    }
}

/// Each replica's fitness and lag on `/metrics`.
enum ReplicaMetrics {
    static func register(_ replicas: Replicas, on metrics: Metrics) {
        for member in replicas.members {
            metrics.registerGauge("db_replica_fit", help: "1 while reads may go to the replica.", labels: ["replica": member.name]) {
                replicas.report()[member.index].fit ? 1 : 0
            }
            metrics.registerGauge(
                "db_replica_lag_seconds", help: "How far the replica trailed the primary at its last probe (-1: unknown).",
                labels: ["replica": member.name]
            ) {
                replicas.report()[member.index].lag.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 } ?? -1
            }
        }
    }
}
