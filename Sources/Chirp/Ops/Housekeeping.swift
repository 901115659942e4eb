import Dispatch
import HTTP
import Postgres

/// Deletes what nobody can use any more, a bounded batch at a time: expired refresh tokens
/// and idempotency keys older than a day (`app.purge_expired`), and rate-limit windows
/// older than a day. Every instance runs it; the deletes are idempotent, so several
/// instances at once only share the work. It runs on a Dispatch queue of its own, never on
/// Swift's cooperative pool, since the database calls block.
// The timer is set up once in `init`; DispatchSource calls are themselves thread-safe.
final class Housekeeping: @unchecked Sendable {
    static let batchSize = 1_000
    private let pool: PostgresPool
    private let logger: Logger
    private let timer: any DispatchSourceTimer
    private let queue = DispatchQueue(label: "chirp.housekeeping")

    init(pool: PostgresPool, logger: Logger, interval: Duration = .seconds(600)) {
        self.pool = pool
        self.logger = logger
        timer = DispatchSource.makeTimerSource(queue: queue)
        let seconds = Int(interval.components.seconds)
        timer.schedule(deadline: .now() + .seconds(seconds), repeating: .seconds(seconds))
    }

    func start() {
        timer.setEventHandler { [self] in
            do {
                let removed = try runOnce()
                if removed > 0 { logger.info("housekeeping", ["removed": .int(removed)]) }
            } catch {
                logger.warning("housekeeping failed", ["error": .string("\(error)")])
            }
        }
        timer.resume()
    }

    func stop() {
        timer.cancel()
    }

    /// One pass; returns how many rows it removed.
    @discardableResult
    func runOnce() throws -> Int {
        let results = try pool.execute(as: .authService, [
            "select app.purge_expired(\(Self.batchSize))",
            """
            delete from rate_limit_hits where (bucket, window_start) in (
                select bucket, window_start from rate_limit_hits
                where window_start < now() - interval '1 day' order by window_start limit \(Self.batchSize))
            """,
        ])
        return try results[0].rows[0].decode(Int.self, at: 0) + results[1].affectedRows
    }
}
