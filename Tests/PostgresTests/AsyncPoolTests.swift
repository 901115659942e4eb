import EventLoops
import Foundation
import Postgres
import Testing

/// The pool's `async` side, waiting on an event loop instead of blocking threads.
@Suite(.timeLimit(.minutes(1))) struct AsyncPoolTests {
    let owner = PostgresIdentity(role: "postgres")

    @Test func executeReturnsResults() async throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        let pool = PostgresPool(configuration: try TestDatabase.adminConfiguration(), eventLoop: loop)
        let results = try await pool.execute(as: owner, readOnly: true, [
            "select 40 + \(2)",
            "select \("chirp")::text, current_user::text",
        ])
        #expect(results.count == 2)
        #expect(try results[0].rows[0].decode(Int.self, at: 0) == 42)
        #expect(try results[1].rows[0].decode((String, String).self) == ("chirp", "postgres"))
        #expect(pool.statistics.idle == 1)
    }

    @Test func oneConnectionServesConcurrentCallersInTurn() async throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        // A long timeout: these callers and the holder run on the cooperative pool, which the
        // blocking suites beside this one can stall for many seconds on a loaded machine.
        let pool = PostgresPool(
            configuration: try TestDatabase.adminConfiguration(),
            pool: .init(maxConnections: 1, leaseTimeout: .seconds(50)), eventLoop: loop)
        let owner = owner
        let started = ContinuousClock.now
        let answers = try await withThrowingTaskGroup(of: Int.self) { group in
            for n in 0..<6 {
                group.addTask {
                    try await pool.execute(as: owner, ["select pg_sleep(0.05), \(n)::int"])[0]
                        .rows[0].decode(Int.self, at: 1)
                }
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

    @Test func callersOnTheLoopThreadWaitThereAndStayThere() async throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        let pool = PostgresPool(
            configuration: try TestDatabase.adminConfiguration(),
            pool: .init(maxConnections: 1, leaseTimeout: .seconds(10)), eventLoop: loop)
        let owner = owner
        let answers = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for n in 0..<4 {
                group.addTask(executorPreference: loop) {
                    let value = try await pool.execute(as: owner, ["select pg_sleep(0.02), \(n)::int"])[0]
                        .rows[0].decode(Int.self, at: 1)
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
        let loop = try EventLoop()
        defer { loop.stop() }
        let pool = PostgresPool(
            configuration: try TestDatabase.adminConfiguration(),
            pool: .init(maxConnections: 1, leaseTimeout: .milliseconds(200)), eventLoop: loop)
        let owner = owner
        let holder = Task { try await pool.execute(as: owner, ["select pg_sleep(4)"]) }
        #expect(await eventually { pool.statistics.inUse == 1 })

        let started = ContinuousClock.now
        do {
            try await pool.execute(as: owner, ["select 1"])
            Issue.record("leased a connection from an exhausted pool")
        } catch let error as PostgresError {
            #expect(error.kind == .poolTimeout)
        }
        let waited = started.duration(to: .now)
        // Failed by the lease timer (only it counts `leaseTimeouts` and throws `.poolTimeout`; the
        // holder's release would have served this caller instead), and not before the timeout.
        // No upper bound: beside the blocking suites the cooperative pool can stall for seconds.
        #expect(waited >= .milliseconds(150), "waited \(waited)")
        #expect(pool.statistics.leaseTimeouts == 1)
        #expect(pool.statistics.waiting == 0)

        // The holder was not disturbed, and its connection serves the next caller.
        _ = try await holder.value
        let after = try await pool.execute(as: owner, ["select 1"])[0].rows[0].decode(Int.self, at: 0)
        #expect(after == 1)
        #expect(pool.statistics.leaseTimeouts == 1)
        #expect(pool.statistics.connectionsOpened == 1)
    }

    @Test func waitersQueuedAtDifferentTimesEachTimeOutAtTheirOwnDeadline() async throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        let pool = PostgresPool(
            configuration: try TestDatabase.adminConfiguration(),
            pool: .init(maxConnections: 1, leaseTimeout: .milliseconds(400)), eventLoop: loop)
        let owner = owner
        // Held well past both deadlines, even if a loaded machine delays the second caller.
        let holder = Task { try await pool.execute(as: owner, ["select pg_sleep(6)"]) }
        #expect(await eventually { pool.statistics.inUse == 1 })

        let started = ContinuousClock.now
        func timeOut() async -> Duration? {
            do {
                try await pool.execute(as: owner, ["select 1"])
                return nil
            } catch let error as PostgresError where error.kind == .poolTimeout {
                return started.duration(to: .now)
            } catch {
                return nil
            }
        }
        let first = Task { await timeOut() }
        #expect(await eventually { pool.statistics.waiting == 1 })
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
        _ = try await holder.value
    }

    @Test func waitsServedInTimeLeaveNoTimersBehind() async throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        let pool = PostgresPool(
            configuration: try TestDatabase.adminConfiguration(),
            pool: .init(maxConnections: 1, leaseTimeout: .seconds(30)), eventLoop: loop)
        let owner = owner
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask { try await pool.execute(as: owner, ["select pg_sleep(0.005)"]) }
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
        let pool = PostgresPool(
            configuration: try TestDatabase.adminConfiguration(),
            pool: .init(maxConnections: 1, leaseTimeout: .seconds(50), loopAffinityWindow: loopAffinityWindow),
            eventLoop: freeing)
        let owner = owner
        // The only connection is held until both callers wait, then freed on `freeing`. Its
        // session's sequence numbers the callers in the order they are served.
        let (gate, open) = AsyncStream<Void>.makeStream()
        let holder = Task(executorPreference: freeing) {
            try await pool.withTransaction(as: owner) { transaction in
                try await transaction.query("create temporary sequence serving_order")
                for await _ in gate { break }
            }
        }
        #expect(await eventually { pool.statistics.inUse == 1 })
        func caller(on loop: EventLoop) -> Task<Int, any Error> {
            Task(executorPreference: loop) {
                try await pool.execute(as: owner, ["select nextval('serving_order')"])[0].rows[0].decode(Int.self, at: 0)
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

    @Test func withTransactionCommitsWhatItsBodyWrote() async throws {
        let (pool, loop) = try Self.poolWithNotes()
        defer { loop.stop() }
        let seenInside = try await pool.withTransaction(as: owner) { transaction in
            try await transaction.query("insert into notes (body) values (\("kept"))")
            return try await transaction.query("select count(*) from notes where body = \("kept")")
                .rows[0].decode(Int.self, at: 0)
        }
        #expect(seenInside == 1)
        // Another session sees it: it was committed, not merely written.
        let admin = try PostgresConnection(configuration: pool.configuration)
        let seenOutside = try admin.query("select count(*) from notes where body = 'kept'").rows[0].decode(Int.self, at: 0)
        #expect(seenOutside == 1)
        #expect(pool.statistics.idle == 1)
    }

    @Test func withTransactionRollsBackWhenItsBodyThrows() async throws {
        struct Abort: Error {}
        let (pool, loop) = try Self.poolWithNotes()
        defer { loop.stop() }
        var attempts = 0
        await #expect(throws: Abort.self) {
            try await pool.withTransaction(as: owner) { transaction in
                attempts += 1
                try await transaction.query("insert into notes (body) values (\("rolled back"))")
                throw Abort()
            }
        }
        #expect(attempts == 1)
        let count = try await pool.execute(as: owner, ["select count(*) from notes where body = 'rolled back'"])[0]
            .rows[0].decode(Int.self, at: 0)
        #expect(count == 0)
        // Rolled back on its connection, which went back to the pool rather than being closed.
        #expect(pool.statistics.connectionsOpened == 1)
    }

    @Test func executeConcurrentlyReturnsBothResults() async throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        let pool = PostgresPool(
            configuration: try TestDatabase.adminConfiguration(),
            pool: .init(maxConnections: 2), eventLoop: loop)
        let (first, second) = try await pool.executeConcurrently(
            as: owner,
            ["select 1", "select \("one")::text"],
            ["select pg_backend_pid()", "select 2"])
        #expect(first.count == 2 && second.count == 2)
        #expect(try first[0].rows[0].decode(Int.self, at: 0) == 1)
        #expect(try first[1].rows[0].decode(String.self, at: 0) == "one")
        #expect(try second[1].rows[0].decode(Int.self, at: 0) == 2)
        #expect(pool.statistics.connectionsOpened == 2)
        #expect(pool.statistics.idle == 2)
    }

    /// A read's first attempt takes an idle connection without checking it. When the server
    /// has closed every one (as after a restart), the read is retried once, checked: the dead
    /// ones are discarded together and a single fresh connection answers.
    @Test func readsRecoverWhenTheServerClosedEveryIdleConnection() async throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        let pool = PostgresPool(
            configuration: try TestDatabase.adminConfiguration(),
            pool: .init(maxConnections: 3, maxAttempts: 2), eventLoop: loop)
        let owner = owner
        // Three at once, so that the pool holds three idle connections afterwards.
        let first = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    try await pool.execute(as: owner, readOnly: true, ["select pg_backend_pid(), pg_sleep(0.1)"])[0]
                        .rows[0].decode(Int.self, at: 0)
                }
            }
            return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
        }
        #expect(first.count == 3 && pool.statistics.idle == 3)
        try terminate(Array(first))

        for _ in 0..<3 {
            let pid = try await pool.execute(as: owner, readOnly: true, ["select pg_backend_pid()"])[0]
                .rows[0].decode(Int.self, at: 0)
            #expect(!first.contains(pid))
        }
        #expect(pool.statistics.connectionsOpened == 4)
        #expect(pool.statistics.size == 1)
    }

    /// A server that ends idle sessions (`idle_session_timeout`) says so and closes the
    /// socket; the read that finds out, unchecked, is run again on a fresh connection.
    @Test func aReadOnAConnectionTheServerTimedOutIsRunAgain() async throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        let pool = PostgresPool(
            configuration: try TestDatabase.adminConfiguration(), pool: .init(maxConnections: 1), eventLoop: loop)
        let firstPID = try await pool.execute(as: owner, [
            "set idle_session_timeout = 100", "select pg_backend_pid()",
        ])[1].rows[0].decode(Int.self, at: 0)
        try await Task.sleep(for: .milliseconds(400))
        let secondPID = try await pool.execute(as: owner, readOnly: true, ["select pg_backend_pid()"])[0]
            .rows[0].decode(Int.self, at: 0)
        #expect(secondPID != firstPID)
        #expect(pool.statistics.connectionsOpened == 2)
    }

    /// A write is not retried after a lost connection (it may have committed), so its lease
    /// checks the idle connection first and never sends on one the server closed.
    @Test func aWriteIsNeverSentOnAConnectionTheServerClosed() async throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        let pool = PostgresPool(
            configuration: try TestDatabase.adminConfiguration(), pool: .init(maxConnections: 1), eventLoop: loop)
        let firstPID = try await pool.execute(as: owner, ["select pg_backend_pid()"])[0].rows[0].decode(Int.self, at: 0)
        try terminate([firstPID])
        let secondPID = try await pool.execute(as: owner, ["select pg_backend_pid()"])[0].rows[0].decode(Int.self, at: 0)
        #expect(secondPID != firstPID)
        #expect(pool.statistics.connectionsOpened == 2)
    }

    /// Terminates backends and waits until they are gone and their farewells have arrived.
    private func terminate(_ pids: [Int]) throws {
        let admin = try PostgresConnection(configuration: TestDatabase.adminConfiguration())
        for pid in pids {
            try admin.query("select pg_terminate_backend(\(pid))")
        }
        for _ in 0..<100 {
            let left = try pids.filter { pid in
                try admin.query("select exists (select from pg_stat_activity where pid = \(pid))").rows[0].decode(Bool.self, at: 0)
            }
            if left.isEmpty { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        Thread.sleep(forTimeInterval: 0.1)
    }

    @Test func executeAfterCloseFailsWithPoolClosed() async throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        let pool = PostgresPool(configuration: try TestDatabase.adminConfiguration(), eventLoop: loop)
        try await pool.execute(as: owner, ["select 1"])
        pool.close()
        #expect(pool.statistics.size == 0)
        do {
            try await pool.execute(as: owner, ["select 1"])
            Issue.record("a closed pool ran a statement")
        } catch let error as PostgresError {
            #expect(error.kind == .poolClosed)
        }
    }

    @Test func closingFailsAWaitingCallerInsteadOfLeavingItHanging() async throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        let pool = PostgresPool(
            configuration: try TestDatabase.adminConfiguration(),
            pool: .init(maxConnections: 1, leaseTimeout: .seconds(10)), eventLoop: loop)
        let owner = owner
        let holder = Task { try await pool.execute(as: owner, ["select pg_sleep(4)"]) }
        #expect(await eventually { pool.statistics.inUse == 1 })
        let waiter = Task { () -> PostgresError.Kind? in
            do {
                try await pool.execute(as: owner, ["select 1"])
                return nil
            } catch let error as PostgresError {
                return error.kind
            }
        }
        #expect(await eventually { pool.statistics.waiting == 1 })

        pool.close()
        let kind = try await waiter.value
        // Failed by the close: the lease timeout would say `.poolTimeout`, and the holder's
        // release would have served it (nil).
        #expect(kind == .poolClosed)
        #expect(pool.statistics.waiting == 0)

        // The caller already holding a connection finishes; its connection is then closed.
        _ = try await holder.value
        #expect(pool.statistics.size == 0)
    }

    /// A pool of one connection on a fresh database with a `notes` table, and its loop.
    private static func poolWithNotes() throws -> (PostgresPool, EventLoop) {
        let configuration = try TestDatabase.create(prefix: "async_pool")
        let setup = try PostgresConnection(configuration: configuration)
        try setup.unsafeExecuteScript("create table notes (id serial primary key, body text not null)")
        let loop = try EventLoop()
        return (PostgresPool(configuration: configuration, pool: .init(maxConnections: 1), eventLoop: loop), loop)
    }
}

/// Polls `condition` every few milliseconds until it holds or `limit` passes; whether it held.
private func eventually(within limit: Duration = .seconds(3), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}
