import EventLoops
import Observability
import Postgres

/// Ranks a fresh explore snapshot in the background every `interval`, so that requests find
/// one younger than `ExploreQueries.maxAgeSeconds` and never wait on the ranking themselves.
/// A request still ranks one if none is young enough (at start-up, or if this job stalls).
/// With several instances, `app.explore_snapshot` lets one of them rank per interval.
final class ExploreRefresher: Sendable {
    static let interval: Duration = .seconds(20)
    private let job: PeriodicJob

    init(pool: PostgresPool, loop: EventLoop, logger: Logger) {
        job = PeriodicJob(name: "explore refresh", interval: Self.interval, loop: loop, logger: logger) {
            try await ExploreRefresher.refresh(on: pool)
        }
    }

    func start() { job.start() }

    func stop() { job.stop() }

    /// Ranks a snapshot unless one was made within the last three quarters of an interval.
    static func refresh(on pool: PostgresPool) async throws {
        let fresherThan = Int(interval.components.seconds) * 3 / 4
        try await pool.execute(as: .anonymous, ExploreQueries.refresh(unlessFresherThan: fresherThan))
    }
}
