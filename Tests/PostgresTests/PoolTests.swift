import EventLoops
import Foundation
import Postgres
import Synchronization
import TestSupport
import Testing

/// Leases: bounded, fair, timed out rather than hanging, and served on the caller's loop.
@Suite(.timeLimit(.minutes(1))) struct PoolTests {
    let owner = TestCluster.superuser

    @Test func executeReturnsEachStatementsOutput() async throws {
        let pool = try TestCluster.adminPool(.init(maxConnections: 1))
        defer { pool.close() }
        let (answer, pair) = try await pool.execute(
            as: owner, readOnly: true,
            PostgresQuery("select 40 + \(2)").value(Int.self),
            PostgresQuery("select \("chirp")::text, current_user::text").onlyRow { try $0.decode((String, String).self) })
        #expect(answer == 42)
        #expect(pair == ("chirp", "postgres"))
        #expect(pool.statistics.idle == 1)
    }

    @Test func oneConnectionServesConcurrentCallersInTurn() async throws {
        // A long timeout: these callers run on the cooperative pool, which other suites can
        // stall for many seconds on a loaded machine.
        let pool = try TestCluster.adminPool(.init(maxConnections: 1, leaseTimeout: .seconds(50)))
        defer { pool.close() }
        let owner = owner
        let started = ContinuousClock.now
        let answers = try await withThrowingTaskGroup(of: Int.self) { group in
            for n in 0..<6 {
                group.addTask { try await pool.execute(as: owner, sleeping(0.05, then: n)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let elapsed = started.duration(to: .now)
        #expect(answers.sorted() == Array(0..<6))
        let statistics = pool.statistics
        #expect(statistics.connectionsOpened == 1)
        #expect(statistics.size == 1 && statistics.waiting == 0 && statistics.leaseTimeouts == 0)
        // One connection: the six sleeps ran one after another.
        #expect(elapsed >= .milliseconds(290), "six 50 ms statements on one connection took \(elapsed)")
    }

    @Test func theBoundIsNeverExceededUnderContention() async throws {
        let pool = try TestCluster.adminPool(.init(maxConnections: 3, leaseTimeout: .seconds(30)))
        defer { pool.close() }
        let owner = owner
        let pids = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<24 {
                group.addTask {
                    try await pool.execute(as: owner, PostgresQuery("select pg_backend_pid(), pg_sleep(0.01)").value(Int.self))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(pids.count == 24)
        #expect(Set(pids).count <= 3)
        #expect(pool.statistics.size <= 3)
    }

    @Test func callersOnTheLoopThreadWaitThereAndStayThere() async throws {
        let (pool, loop) = try poolOfOneOnItsOwnLoop()
        defer { Self.close(pool, loop) }
        let owner = owner
        let answers = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for n in 0..<4 {
                group.addTask(executorPreference: loop) {
                    let value = try await pool.execute(as: owner, sleeping(0.02, then: n))
                    return (value, EventLoop.current === loop)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.map(\.0).sorted() == Array(0..<4))
        #expect(answers.allSatisfy { $0.1 })
        #expect(pool.statistics.connectionsOpened == 1)
    }

    @Test func aSecondLeaseFailsWithATimeoutWhileTheOnlyConnectionIsHeld() async throws {
        let (pool, holder) = try await heldPool(leaseTimeout: .milliseconds(200))
        defer { pool.close() }

        let started = ContinuousClock.now
        #expect(await failure(of: pool) == .poolTimeout)
        let waited = started.duration(to: .now)
        // Failed by the lease timer (only it counts `leaseTimeouts` and throws `.poolTimeout`; the
        // holder's release would have served this caller instead), and not before the timeout.
        // No upper bound: a loaded machine can stall the cooperative pool for seconds.
        #expect(waited >= .milliseconds(150), "waited \(waited)")
        #expect(pool.statistics.leaseTimeouts == 1)
        #expect(pool.statistics.waiting == 0)

        // The holder was not disturbed, and its connection serves the next caller.
        try await holder.release()
        #expect(try await pool.execute(as: owner, PostgresQuery("select 1").value(Int.self)) == 1)
        #expect(pool.statistics.leaseTimeouts == 1)
        #expect(pool.statistics.connectionsOpened == 1)
    }

    @Test func waitersQueuedAtDifferentTimesEachTimeOutAtTheirOwnDeadline() async throws {
        // Held past both deadlines, however long a loaded machine delays the callers.
        let (pool, holder) = try await heldPool(leaseTimeout: .milliseconds(400))
        defer { pool.close() }

        let started = ContinuousClock.now
        func timeOut() async -> Duration? {
            await failure(of: pool) == .poolTimeout ? started.duration(to: .now) : nil
        }
        let first = Task { await timeOut() }
        // Queued, or (on a machine so loaded that this poll missed the wait) already failed.
        #expect(await eventually(within: .seconds(30)) { pool.statistics.waiting == 1 || pool.statistics.leaseTimeouts == 1 })
        try await Task.sleep(for: .milliseconds(250))
        let second = Task { await timeOut() }
        let firstWaited = await first.value
        let secondWaited = await second.value
        // The second's deadline came 250 ms after the first's: the timer that failed the first
        // must not fail it early, and must leave one behind for it.
        #expect(firstWaited.map { $0 >= .milliseconds(350) } == true, "first waited \(String(describing: firstWaited))")
        #expect(secondWaited.map { $0 >= .milliseconds(600) } == true, "second waited \(String(describing: secondWaited))")
        #expect(pool.statistics.leaseTimeouts == 2)
        #expect(pool.statistics.waiting == 0)
        try await holder.release()
    }

    @Test func waitsServedInTimeLeaveNoTimersBehind() async throws {
        let (pool, loop) = try poolOfOneOnItsOwnLoop()
        defer { Self.close(pool, loop) }
        let owner = owner
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask { try await pool.execute(as: owner, sleeping(0.005, then: 0)) }
            }
            try await group.waitForAll()
        }
        #expect(pool.statistics.leaseTimeouts == 0)
        // Nineteen callers waited and were served long before their timeout. At most the timer
        // for the oldest waiter is still set, not one per wait.
        let timers = loop.executeAndWait { loop.scheduledTimerCount }
        #expect(timers <= 1, "\(timers) timers left on the loop")
    }

    @Test func aFreedConnectionGoesFirstToAWaiterOnTheLoopThatFreedIt() async throws {
        // Within the window the younger caller on the freeing loop goes first; past it (here
        // at once), the callers are served in the order they came.
        #expect(try await servingOrder(loopAffinityWindow: .seconds(30)) == ["same loop", "other loop"])
        #expect(try await servingOrder(loopAffinityWindow: .zero) == ["other loop", "same loop"])
    }

    /// In which order a connection freed on one loop serves two callers waiting for it: first
    /// one on another loop, then one on the same loop.
    private func servingOrder(loopAffinityWindow: Duration) async throws -> [String] {
        let freeing = try EventLoop()
        let other = try EventLoop()
        defer {
            freeing.stop()
            other.stop()
        }
        let pool = try TestCluster.adminPool(
            .init(maxConnections: 1, leaseTimeout: .seconds(50), loopAffinityWindow: loopAffinityWindow), loop: freeing)
        defer { pool.close() }
        let owner = owner
        // The only connection is held until both callers wait, then freed on `freeing`. Its
        // session's sequence numbers the callers in the order they are served.
        let (gate, open) = AsyncStream<Void>.makeStream()
        let holder = Task(executorPreference: freeing) {
            try await pool.withTransaction(as: owner) { transaction in
                try await transaction.execute("create temporary sequence serving_order" as PostgresQuery)
                for await _ in gate { break }
            }
        }
        #expect(await eventually { pool.statistics.inUse == 1 })
        func caller(on loop: EventLoop) -> Task<Int, any Error> {
            Task(executorPreference: loop) {
                try await pool.execute(as: owner, PostgresQuery("select nextval('serving_order')").value(Int.self))
            }
        }
        let first = caller(on: other)
        #expect(await eventually { pool.statistics.waiting == 1 })
        let second = caller(on: freeing)
        #expect(await eventually { pool.statistics.waiting == 2 })
        open.yield()
        try await holder.value
        let turns = [(try await first.value, "other loop"), (try await second.value, "same loop")]
        return turns.sorted { $0.0 < $1.0 }.map(\.1)
    }

    @Test func executeAfterCloseFailsWithPoolClosed() async throws {
        let pool = try TestCluster.adminPool()
        try await pool.execute(as: owner, "select 1" as PostgresQuery)
        pool.close()
        #expect(pool.statistics.size == 0)
        #expect(await failure(of: pool) == .poolClosed)
    }

    @Test func closingFailsAWaitingCallerInsteadOfLeavingItHanging() async throws {
        let (pool, holder) = try await heldPool(leaseTimeout: .seconds(30))
        let waiter = Task { await failure(of: pool) }
        #expect(await eventually { pool.statistics.waiting == 1 })

        pool.close()
        // Failed by the close: the lease timeout would say `.poolTimeout`, and the holder's
        // release would have served it (nil).
        #expect(await waiter.value == .poolClosed)
        #expect(pool.statistics.waiting == 0)

        // The caller already holding a connection finishes; its connection is then closed.
        try await holder.release()
        #expect(pool.statistics.size == 0)
    }

    @Test func twoReadsAtOnceReturnBothOutputsAndOverlap() async throws {
        let pool = try TestCluster.adminPool(.init(maxConnections: 2))
        defer { pool.close() }
        _ = try await pool.executeConcurrently(as: owner, "select 1" as PostgresQuery, "select 2" as PostgresQuery)  // warm both
        // Each read's start and end by the server's clock: the statement's start, and the clock
        // after its half-second sleep.
        let read = PostgresQuery("""
            select extract(epoch from statement_timestamp())::float8, extract(epoch from clock_timestamp())::float8
            from pg_sleep(0.5)
            """).onlyRow { try $0.decode((Double, Double).self) }
        let (first, second) = try await pool.executeConcurrently(as: owner, read, read)
        #expect(first.1 - first.0 >= 0.5 && second.1 - second.0 >= 0.5)
        #expect(second.0 < first.1 && first.0 < second.1, "first ran \(first), second \(second)")
        #expect(pool.statistics.connectionsOpened == 2)
        #expect(pool.statistics.idle == 2)
    }

    @Test func twoReadsAtOnceOnAPoolOfOneRunInTurn() async throws {
        let pool = try TestCluster.adminPool(.init(maxConnections: 1))
        defer { pool.close() }
        let (first, second) = try await pool.executeConcurrently(
            as: owner, PostgresQuery("select 1").value(Int.self), PostgresQuery("select \("two")::text").value(String.self))
        #expect(first == 1 && second == "two")
        #expect(pool.statistics.connectionsOpened == 1)
    }

    /// One of two reads at once fails: the error reaches the caller, both connections are rolled
    /// back (each in a round trip of its own, after the two are no longer in use) and serve again.
    @Test func aFailedReadOfTwoAtOnceLeavesBothConnectionsUsable() async throws {
        let pool = try TestCluster.adminPool(.init(maxConnections: 2))
        defer { pool.close() }
        await #expect(throws: PostgresError.self) {
            try await pool.executeConcurrently(
                as: owner, PostgresQuery("select 1").value(Int.self), PostgresQuery("select 1 / \(0)::int").value(Int.self))
        }
        let (first, second) = try await pool.executeConcurrently(
            as: owner, PostgresQuery("select 1").value(Int.self), PostgresQuery("select 2").value(Int.self))
        #expect(first == 1 && second == 2)
        #expect(pool.statistics.idle == 2)
    }

    /// A pool of one connection that waits on a loop of its own, so the test can look at that loop.
    private func poolOfOneOnItsOwnLoop() throws -> (PostgresPool, EventLoop) {
        let loop = try EventLoop()
        return (try TestCluster.adminPool(.init(maxConnections: 1, leaseTimeout: .seconds(30)), loop: loop), loop)
    }

    private static func close(_ pool: PostgresPool, _ loop: EventLoop) {
        pool.close()
        loop.stop()
    }

    /// A pool of one connection, and what holds that connection until released.
    private func heldPool(leaseTimeout: Duration) async throws -> (PostgresPool, Holder) {
        let pool = try TestCluster.adminPool(.init(maxConnections: 1, leaseTimeout: leaseTimeout))
        let holder = Holder(pool: pool, owner: owner)
        #expect(await eventually(within: .seconds(30)) { pool.statistics.inUse == 1 })
        return (pool, holder)
    }

    /// How a one-statement execute on `pool` fails; nil if it succeeds.
    private func failure(of pool: PostgresPool) async -> PostgresError.Kind? {
        do {
            try await pool.execute(as: owner, "select 1" as PostgresQuery)
            return nil
        } catch {
            return (error as? PostgresError)?.kind
        }
    }
}

/// A transaction that holds a pool's connection until released.
private struct Holder {
    private let gate: AsyncStream<Void>.Continuation
    private let task: Task<Void, any Error>

    init(pool: PostgresPool, owner: PostgresIdentity) {
        let (opened, gate) = AsyncStream<Void>.makeStream()
        self.gate = gate
        task = Task {
            try await pool.withTransaction(as: owner) { transaction in
                try await transaction.execute("select 1" as PostgresQuery)
                for await _ in opened { break }
            }
        }
    }

    /// Lets the transaction commit, and waits until it has.
    func release() async throws {
        gate.yield()
        try await task.value
    }
}

/// A statement that sleeps, then answers `value`.
func sleeping(_ seconds: Double, then value: Int) -> PostgresRead<Int> {
    PostgresQuery("select pg_sleep(\(seconds)), \(value)::int").onlyRow { try $0.decode(Int.self, at: 1) }
}
