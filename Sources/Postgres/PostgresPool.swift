import Foundation

/// Bounds the pool. An exhausted pool makes callers wait at most `leaseTimeout`, then fail
/// with `.poolTimeout`, which a server turns into 503 rather than a hang.
public struct PostgresPoolConfiguration: Sendable {
    public var maxConnections: Int
    public var leaseTimeout: Duration
    /// Attempts for a transaction that failed with a serialization failure or a deadlock,
    /// or (when safe) lost its connection.
    public var maxAttempts: Int

    public init(maxConnections: Int = 10, leaseTimeout: Duration = .seconds(2), maxAttempts: Int = 3) {
        self.maxConnections = max(1, maxConnections)
        self.leaseTimeout = leaseTimeout
        self.maxAttempts = max(1, maxAttempts)
    }
}

/// A snapshot of the pool, for metrics.
public struct PostgresPoolStatistics: Sendable, Equatable {
    public var size: Int
    public var inUse: Int
    public var idle: Int
    public var waiting: Int
    public var leaseTimeouts: Int
    public var connectionsOpened: Int
}

/// A bounded set of connections, leased to one caller at a time. Connections are checked
/// before every lease and replaced when the server has closed them, so the pool recovers by
/// itself after a backend is terminated or the server restarts.
///
/// All mutable state is guarded by `condition`: hence `@unchecked Sendable`. Leasing blocks
/// the calling thread; call it from threads made for blocking work, never from Swift's
/// cooperative pool.
public final class PostgresPool: @unchecked Sendable {
    public let configuration: PostgresConfiguration
    public let poolConfiguration: PostgresPoolConfiguration

    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    /// Connections that exist or are being opened, leased or idle.
    private var open = 0
    private var waiting = 0
    private var closed = false
    private var leaseTimeouts = 0
    private var connectionsOpened = 0

    public init(configuration: PostgresConfiguration, pool: PostgresPoolConfiguration = .init()) {
        self.configuration = configuration
        self.poolConfiguration = pool
    }

    public var statistics: PostgresPoolStatistics {
        condition.lock()
        defer { condition.unlock() }
        return PostgresPoolStatistics(
            size: open, inUse: open - idle.count, idle: idle.count, waiting: waiting,
            leaseTimeouts: leaseTimeouts, connectionsOpened: connectionsOpened)
    }

    /// Leases a connection for the duration of `body`.
    @discardableResult
    public func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try lease(count: 1)[0]
        defer { release(connection) }
        return try body(connection)
    }

    /// Leases `count` connections at once, all or none, so two callers each holding one
    /// connection can never wait forever for each other's second.
    func lease(count: Int) throws -> [PostgresConnection] {
        precondition(count >= 1 && count <= poolConfiguration.maxConnections, "lease count out of range")
        let deadline = Date().addingTimeInterval(poolConfiguration.leaseTimeout.seconds)
        var leased: [PostgresConnection] = []
        do {
            while leased.count < count {
                let (reused, toOpen) = try reserve(count - leased.count, deadline: deadline)
                for connection in reused {
                    if connection.isHealthy {
                        leased.append(connection)
                    } else {
                        discard(connection)  // closed by the server while idle: replace it
                    }
                }
                for opened in 0..<toOpen {
                    do {
                        leased.append(try openConnection())
                    } catch {
                        unreserve(toOpen - opened - 1)
                        throw error
                    }
                }
            }
        } catch {
            leased.forEach(release)
            throw error
        }
        return leased
    }

    /// Takes idle connections and reserves room for new ones, waiting until `needed` are
    /// available together or the deadline passes.
    private func reserve(_ needed: Int, deadline: Date) throws -> ([PostgresConnection], Int) {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if closed { throw PostgresError(.poolClosed, message: "the connection pool is closed") }
            let available = idle.count + (poolConfiguration.maxConnections - open)
            if available >= needed {
                let reused = Array(idle.suffix(min(needed, idle.count)))
                idle.removeLast(reused.count)
                let toOpen = needed - reused.count
                open += toOpen
                return (reused, toOpen)
            }
            waiting += 1
            let signalled = condition.wait(until: deadline)
            waiting -= 1
            if !signalled && Date() >= deadline {
                leaseTimeouts += 1
                throw PostgresError(.poolTimeout, message: "no database connection free within the lease timeout")
            }
        }
    }

    /// Opens a connection for a slot already counted in `open`.
    private func openConnection() throws -> PostgresConnection {
        do {
            let connection = try PostgresConnection(configuration: configuration)
            condition.lock()
            connectionsOpened += 1
            condition.unlock()
            return connection
        } catch {
            unreserve(1)
            throw error
        }
    }

    /// Returns a connection. One left inside a transaction or broken is closed instead.
    func release(_ connection: PostgresConnection) {
        guard connection.isReusable else {
            discard(connection)
            return
        }
        condition.lock()
        if closed {
            open -= 1
        } else {
            idle.append(connection)
        }
        condition.signal()
        condition.unlock()
    }

    private func discard(_ connection: PostgresConnection) {
        unreserve(1)
        // `connection` is finished when its last reference goes, outside the lock.
    }

    /// Gives back slots counted in `open` that hold no connection.
    private func unreserve(_ slots: Int) {
        guard slots > 0 else { return }
        condition.lock()
        open -= slots
        condition.broadcast()
        condition.unlock()
    }

    /// Closes idle connections and refuses new leases; leased connections close on release.
    public func close() {
        condition.lock()
        closed = true
        let closing = idle
        idle.removeAll()
        open -= closing.count
        condition.broadcast()
        condition.unlock()
        _ = closing
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
