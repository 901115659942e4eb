import HTTP
import Postgres

/// Deletes what nobody can use any more, a bounded batch at a time: expired refresh tokens
/// and idempotency keys older than a day (`app.purge_expired`), and rate-limit windows
/// older than a day. Every instance runs it; the deletes are idempotent, so several
/// instances at once only share the work.
final class Housekeeping: Sendable {
    static let batchSize = 1_000
    private let pool: PostgresPool
    private let job: PeriodicJob

    init(pool: PostgresPool, logger: Logger, interval: Duration = .seconds(600)) {
        self.pool = pool
        job = PeriodicJob(name: "housekeeping", interval: interval, logger: logger) {
            let removed = try Housekeeping.runOnce(on: pool)
            if removed > 0 { logger.info("housekeeping", ["removed": .int(removed)]) }
        }
    }

    func start() { job.start() }

    func stop() { job.stop() }

    /// One pass; returns how many rows it removed.
    @discardableResult
    func runOnce() throws -> Int {
        try Self.runOnce(on: pool)
    }

    private static func runOnce(on pool: PostgresPool) throws -> Int {
        let results = try pool.execute(as: .authService, [
            "select app.purge_expired(\(batchSize))",
            """
            delete from rate_limit_hits where (bucket, window_start) in (
                select bucket, window_start from rate_limit_hits
                where window_start < app.expired_before('rate_limit_hits') order by window_start limit \(batchSize))
            """,
        ])
        return try results[0].rows[0].decode(Int.self, at: 0) + results[1].affectedRows
    }
}
