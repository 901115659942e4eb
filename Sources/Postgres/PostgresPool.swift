import EventLoops
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
/// before a lease (except on the `async` side for a read's first attempt, which is retried
/// instead) and replaced when the server has closed them, so the pool recovers by itself after
/// a backend is terminated or the server restarts.
///
/// Two ways in: the `async` methods wait on `eventLoop` (request handlers use them; nothing
/// blocks), the others block the calling thread (background jobs, migrations, tools: call
/// them from threads made for blocking work, never from Swift's cooperative pool or a loop).
///
/// All mutable state is guarded by `condition`: hence `@unchecked Sendable`.
public final class PostgresPool: @unchecked Sendable {
    public let configuration: PostgresConfiguration
    public let poolConfiguration: PostgresPoolConfiguration
    /// Where the `async` methods wait for their sockets when called from no loop's thread;
    /// from a loop's thread they wait on that loop. Without either they throw.
    public let eventLoop: EventLoop?

    /// Idle connections taken, and how many new ones may be opened.
    typealias Reservation = ([PostgresConnection], Int)

    /// A caller of the `async` lease waiting for connections.
    private struct Waiter {
        var needed: Int
        /// When it began to wait.
        var since: ContinuousClock.Instant
        /// When its lease timeout passes.
        var deadline: ContinuousClock.Instant
        /// The loop it waits on.
        var loop: ObjectIdentifier
        var continuation: UnsafeContinuation<Reservation, any Error>
    }

    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    /// Connections that exist or are being opened, leased or idle.
    private var open = 0
    private var waiting = 0
    private var closed = false
    private var leaseTimeouts = 0
    private var connectionsOpened = 0
    /// In arrival order, which is also deadline order: they share one timeout.
    private var waiters: [Waiter] = []
    /// Whether a timer is set to fail the oldest waiter when its timeout passes. One at a time
    /// is enough, as the oldest is always the first to expire; a timer per waiter would leave
    /// one behind on the loop for every wait served in time (thousands a second under load).
    private var expiryScheduled = false

    public init(configuration: PostgresConfiguration, pool: PostgresPoolConfiguration = .init(), eventLoop: EventLoop? = nil) {
        self.configuration = configuration
        self.poolConfiguration = pool
        self.eventLoop = eventLoop
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
                leased += healthy(reused)
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
    private func reserve(_ needed: Int, deadline: Date) throws -> Reservation {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if closed { throw Self.closedError }
            if let reserved = takeLocked(needed) { return reserved }
            waiting += 1
            let signalled = condition.wait(until: deadline)
            waiting -= 1
            if !signalled && Date() >= deadline {
                leaseTimeouts += 1
                throw Self.leaseTimeoutError
            }
        }
    }

    /// Takes idle connections and room for new ones if `needed` are available; `condition` is held.
    private func takeLocked(_ needed: Int) -> Reservation? {
        let available = idle.count + (poolConfiguration.maxConnections - open)
        guard available >= needed else { return nil }
        let reused = Array(idle.suffix(min(needed, idle.count)))
        idle.removeLast(reused.count)
        let toOpen = needed - reused.count
        open += toOpen
        return (reused, toOpen)
    }

    private static var closedError: PostgresError { PostgresError(.poolClosed, message: "the connection pool is closed") }
    private static var leaseTimeoutError: PostgresError {
        PostgresError(.poolTimeout, message: "no database connection free within the lease timeout")
    }

    /// `reserve`, without blocking: a caller that must wait is resumed by whoever frees enough
    /// connections, or fails when the lease timeout passes on `loop`.
    func reserve(_ needed: Int, on loop: EventLoop) async throws -> Reservation {
        try await withUnsafeThrowingContinuation { continuation in
            condition.lock()
            if closed {
                condition.unlock()
                continuation.resume(throwing: Self.closedError)
                return
            }
            // Waiting callers come first.
            if waiters.isEmpty, let reserved = takeLocked(needed) {
                condition.unlock()
                continuation.resume(returning: reserved)
                return
            }
            let now = ContinuousClock.now
            let deadline = now + poolConfiguration.leaseTimeout
            waiters.append(Waiter(
                needed: needed, since: now, deadline: deadline, loop: ObjectIdentifier(loop), continuation: continuation))
            waiting += 1
            let scheduling = !expiryScheduled
            expiryScheduled = true
            condition.unlock()
            if scheduling { scheduleExpiry(at: deadline, on: loop) }
        }
    }

    private func scheduleExpiry(at deadline: ContinuousClock.Instant, on loop: EventLoop) {
        loop.after(ContinuousClock.now.duration(to: deadline)) { [weak self] in self?.expireWaiters(on: loop) }
    }

    /// Fails the waiters whose lease timeout has passed, then sets the timer for the oldest left.
    private func expireWaiters(on loop: EventLoop) {
        let now = ContinuousClock.now
        condition.lock()
        let expired = Array(waiters.prefix { $0.deadline <= now })
        waiters.removeFirst(expired.count)
        waiting -= expired.count
        leaseTimeouts += expired.count
        let next = waiters.first?.deadline
        expiryScheduled = next != nil
        condition.unlock()
        for waiter in expired {
            waiter.continuation.resume(throwing: Self.leaseTimeoutError)
        }
        if let next { scheduleExpiry(at: next, on: loop) }
    }

    /// Hands freed connections to waiting `async` callers; `condition` is held. The returned
    /// continuations are resumed by the caller once the lock is released.
    ///
    /// Waiters on the loop that frees the connections go first, while the oldest waiter has
    /// waited less than `loopAffinityWindow` (so no wait grows by more than that): their tasks
    /// carry on in this turn of the loop, where another loop's waiter would have to be woken on
    /// its own thread, and under load nearly every lease waits. Then the rest, in order.
    private func serveWaitersLocked() -> [(UnsafeContinuation<Reservation, any Error>, Reservation)] {
        var served: [(UnsafeContinuation<Reservation, any Error>, Reservation)] = []
        if let oldest = waiters.first, let current = EventLoop.current.map(ObjectIdentifier.init),
           oldest.loop != current, oldest.since.duration(to: .now) < poolConfiguration.loopAffinityWindow {
            while let own = waiters.firstIndex(where: { $0.loop == current }), let reserved = takeLocked(waiters[own].needed) {
                served.append((waiters.remove(at: own).continuation, reserved))
                waiting -= 1
            }
        }
        while let first = waiters.first, let reserved = takeLocked(first.needed) {
            waiters.removeFirst()
            waiting -= 1
            served.append((first.continuation, reserved))
        }
        return served
    }

    /// The usable ones of `reused`; any the server closed while they sat idle are discarded,
    /// and the lease reserves again in their place.
    func healthy(_ reused: [PostgresConnection]) -> [PostgresConnection] {
        reused.filter { connection in
            if connection.isHealthy { return true }
            discard(connection)
            return false
        }
    }

    /// Opens a connection for a slot already counted in `open`.
    func openConnection() throws -> PostgresConnection {
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
        let served = serveWaitersLocked()
        condition.unlock()
        for (continuation, reserved) in served { continuation.resume(returning: reserved) }
    }

    func discard(_ connection: PostgresConnection) {
        unreserve(1)
        // `connection` is finished when its last reference goes, outside the lock.
    }

    /// Gives back slots counted in `open` that hold no connection.
    func unreserve(_ slots: Int) {
        guard slots > 0 else { return }
        condition.lock()
        open -= slots
        condition.broadcast()
        let served = serveWaitersLocked()
        condition.unlock()
        for (continuation, reserved) in served { continuation.resume(returning: reserved) }
    }

    /// Closes idle connections and refuses new leases; leased connections close on release.
    public func close() {
        condition.lock()
        closed = true
        let closing = idle
        idle.removeAll()
        open -= closing.count
        let refused = waiters
        waiters.removeAll()
        waiting -= refused.count
        condition.broadcast()
        condition.unlock()
        for waiter in refused { waiter.continuation.resume(throwing: Self.closedError) }
        _ = closing
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
