import EventLoops
import Observability
import Postgres

/// Deletes what nobody can use any more, a bounded batch at a time: expired refresh tokens
/// and idempotency keys (`app.purge_expired`), and expired rate-limit windows, each past the
/// lifetime `app.expired_before` gives it. Every instance runs it; the deletes are
/// idempotent, so several instances at once only share the work.
final class Housekeeping: Sendable {
    static let batchSize = 1_000
    private let pool: PostgresPool
    private let job: PeriodicJob

    init(pool: PostgresPool, loop: EventLoop, logger: Logger, interval: Duration = .seconds(600)) {
        self.pool = pool
        job = PeriodicJob(name: "housekeeping", interval: interval, loop: loop, logger: logger) {
            let removed = try await Housekeeping.runOnce(on: pool)
            if removed > 0 { logger.info("housekeeping", ["removed": .int(removed)]) }
        }
    }

    func start() { job.start() }

    func stop() { job.stop() }

    /// One pass; returns how many rows it removed.
    @discardableResult
    func runOnce() async throws -> Int {
        try await Self.runOnce(on: pool)
    }

    private static func runOnce(on pool: PostgresPool) async throws -> Int {
        let (purged, windows) = try await pool.execute(
            as: .authService, OpsQueries.purgeExpired(batchSize: batchSize),
            OpsQueries.purgeRateLimitWindows(batchSize: batchSize))
        return purged + windows
    }
}
