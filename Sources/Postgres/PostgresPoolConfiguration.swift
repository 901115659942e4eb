import Foundation

/// Bounds the pool. An exhausted pool makes callers wait at most `leaseTimeout`, then fail
/// with `.poolTimeout`, which a server turns into 503 rather than a hang.
public struct PostgresPoolConfiguration: Sendable {
    public var maxConnections: Int
    public var leaseTimeout: Duration
    /// Attempts for a transaction that failed with a serialization failure or a deadlock,
    /// or (when safe) lost its connection.
    public var maxAttempts: Int
    /// A connection freed on an event loop goes first to a caller waiting on that loop, whose
    /// task then carries on without waking another loop's thread, unless the oldest caller has
    /// waited this long: the most any wait grows for it.
    public var loopAffinityWindow: Duration

    public init(
        maxConnections: Int = PostgresPoolConfiguration.defaultMaxConnections, leaseTimeout: Duration = .seconds(2),
        maxAttempts: Int = 3, loopAffinityWindow: Duration = .milliseconds(10)
    ) {
        self.maxConnections = max(1, maxConnections)
        self.leaseTimeout = leaseTimeout
        self.maxAttempts = max(1, maxAttempts)
        self.loopAffinityWindow = loopAffinityWindow
    }

    /// Three per core, at most 32. A database on this machine (the service's private one, or
    /// Compose's) does the most with a few busy backends per core: fewer leave the cores idle
    /// while the client works between round trips, more only take turns on them, and every turn
    /// costs PostgreSQL CPU (docs/BENCHMARKS.md, "Pool size", measures it). At most a third of
    /// PostgreSQL's default `max_connections`, leaving room for other clients.
    public static var defaultMaxConnections: Int {
        min(3 * ProcessInfo.processInfo.activeProcessorCount, 32)
    }
}
