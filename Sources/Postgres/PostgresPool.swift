import EventLoops
import Foundation

/// A bounded set of connections, leased to one caller at a time. Connections are checked
/// before a lease (except for a read's first attempt, which is retried instead) and replaced
/// when the server has closed them, so the pool recovers by itself after a backend is
/// terminated or the server restarts.
///
/// Every method is `async` and waits on an event loop, never blocking a thread: the loop the
/// caller runs on, or else the pool's own (`eventLoop`). Opening a connection blocks in libpq,
/// so that runs on `BlockingWork`'s threads.
///
/// All mutable state is guarded by `lock`: hence `@unchecked Sendable`.
public final class PostgresPool: @unchecked Sendable {
    public let configuration: PostgresConfiguration
    public let poolConfiguration: PostgresPoolConfiguration
    /// Where sockets are waited on when the caller runs on no loop's thread.
    public let eventLoop: EventLoop
    /// Faults a test may inject into this pool's writes (none unless armed).
    package let faults = PostgresFaults()
    /// Whether `eventLoop` was made by the pool, and so stops with it.
    private let ownsEventLoop: Bool

    /// Idle connections taken, and how many new ones may be opened.
    typealias Reservation = ([PostgresConnection], Int)

    /// A caller waiting for connections.
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

    private let lock = NSLock()
    private var idle: [PostgresConnection] = []
    /// Connections that exist or are being opened, leased or idle.
    private var open = 0
    private var closed = false
    private var leaseTimeouts = 0
    private var connectionsOpened = 0
    /// In arrival order, which is also deadline order: they share one timeout.
    private var waiters: [Waiter] = []
    /// Whether a timer is set to fail the oldest waiter when its timeout passes. One at a time
    /// is enough, as the oldest is always the first to expire; a timer per waiter would leave
    /// one behind on the loop for every wait served in time (thousands a second under load).
    private var expiryScheduled = false

    /// - Parameter eventLoop: the loop to wait on when a caller runs on none (share the
    ///   server's, so handlers and their queries wait on the same threads); without one the
    ///   pool makes its own and stops it on `close`.
    public init(
        configuration: PostgresConfiguration, pool: PostgresPoolConfiguration = .init(), eventLoop: EventLoop? = nil
    ) throws {
        self.configuration = configuration
        self.poolConfiguration = pool
        if let eventLoop {
            self.eventLoop = eventLoop
            ownsEventLoop = false
        } else {
            self.eventLoop = try EventLoop(name: "postgres")
            ownsEventLoop = true
        }
    }

    deinit {
        if ownsEventLoop { eventLoop.stop() }
    }

    public var statistics: PostgresPoolStatistics {
        lock.withLock {
            PostgresPoolStatistics(
                size: open, inUse: open - idle.count, idle: idle.count, waiting: waiters.count,
                leaseTimeouts: leaseTimeouts, connectionsOpened: connectionsOpened)
        }
    }

    /// Takes idle connections and room for new ones if `needed` are available; `lock` is held.
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

    /// Takes idle connections and reserves room for new ones once `needed` are available
    /// together. A caller that must wait is resumed by whoever frees enough connections, or
    /// fails when the lease timeout passes on `loop`.
    func reserve(_ needed: Int, on loop: EventLoop) async throws -> Reservation {
        try await withUnsafeThrowingContinuation { continuation in
            lock.lock()
            if closed {
                lock.unlock()
                continuation.resume(throwing: Self.closedError)
                return
            }
            // Waiting callers come first.
            if waiters.isEmpty, let reserved = takeLocked(needed) {
                lock.unlock()
                continuation.resume(returning: reserved)
                return
            }
            let now = ContinuousClock.now
            let deadline = now + poolConfiguration.leaseTimeout
            waiters.append(Waiter(
                needed: needed, since: now, deadline: deadline, loop: ObjectIdentifier(loop), continuation: continuation))
            let scheduling = !expiryScheduled
            expiryScheduled = true
            lock.unlock()
            if scheduling { scheduleExpiry(at: deadline, on: loop) }
        }
    }

    private func scheduleExpiry(at deadline: ContinuousClock.Instant, on loop: EventLoop) {
        loop.after(ContinuousClock.now.duration(to: deadline)) { [weak self] in self?.expireWaiters(on: loop) }
    }

    /// Fails the waiters whose lease timeout has passed, then sets the timer for the oldest left.
    private func expireWaiters(on loop: EventLoop) {
        let now = ContinuousClock.now
        lock.lock()
        let expired = Array(waiters.prefix { $0.deadline <= now })
        waiters.removeFirst(expired.count)
        leaseTimeouts += expired.count
        let next = waiters.first?.deadline
        expiryScheduled = next != nil
        lock.unlock()
        for waiter in expired {
            waiter.continuation.resume(throwing: Self.leaseTimeoutError)
        }
        if let next { scheduleExpiry(at: next, on: loop) }
    }

    /// Hands freed connections to waiting callers; `lock` is held. The returned
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
            }
        }
        while let first = waiters.first, let reserved = takeLocked(first.needed) {
            waiters.removeFirst()
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

    /// Opens a connection for a slot already counted in `open`. Blocks: call it on a thread
    /// made for blocking.
    func openConnection() throws -> PostgresConnection {
        do {
            let connection = try PostgresConnection(configuration: configuration)
            lock.withLock { connectionsOpened += 1 }
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
        lock.lock()
        if closed {
            open -= 1
        } else {
            idle.append(connection)
        }
        let served = serveWaitersLocked()
        lock.unlock()
        for (continuation, reserved) in served { continuation.resume(returning: reserved) }
    }

    func discard(_ connection: PostgresConnection) {
        unreserve(1)
        // `connection` is finished when its last reference goes, outside the lock.
    }

    /// Gives back slots counted in `open` that hold no connection.
    func unreserve(_ slots: Int) {
        guard slots > 0 else { return }
        lock.lock()
        open -= slots
        let served = serveWaitersLocked()
        lock.unlock()
        for (continuation, reserved) in served { continuation.resume(returning: reserved) }
    }

    /// Closes idle connections and refuses new leases; leased connections close on release.
    /// A loop the pool made runs until the pool itself goes.
    public func close() {
        lock.lock()
        closed = true
        let closing = idle
        idle.removeAll()
        open -= closing.count
        let refused = waiters
        waiters.removeAll()
        lock.unlock()
        for waiter in refused { waiter.continuation.resume(throwing: Self.closedError) }
        _ = closing
    }
}
