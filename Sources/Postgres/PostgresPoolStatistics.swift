/// A snapshot of the pool, for metrics.
public struct PostgresPoolStatistics: Sendable, Equatable {
    public var size: Int
    public var inUse: Int
    public var idle: Int
    public var waiting: Int
    public var leaseTimeouts: Int
    public var connectionsOpened: Int
}
