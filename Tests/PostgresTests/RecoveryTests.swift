import Foundation
import Postgres
import TestSupport
import Testing

/// The pool replaces connections the server closed, and retries only what is safe to retry.
@Suite(.timeLimit(.minutes(1))) struct RecoveryTests {
    let owner = TestCluster.superuser
    let backendPID = PostgresQuery("select pg_backend_pid()").value(Int.self)

    /// A read's first attempt takes an idle connection without checking it. When the server
    /// has closed every one (as after a restart), the read is retried once, checked: the dead
    /// ones are discarded together and a single fresh connection answers.
    @Test func readsRecoverWhenTheServerClosedEveryIdleConnection() async throws {
        let pool = try TestCluster.adminPool(.init(maxConnections: 3, maxAttempts: 2))
        defer { pool.close() }
        let owner = owner
        // Three at once, so that the pool holds three idle connections afterwards.
        let first = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    try await pool.execute(
                        as: owner, readOnly: true, PostgresQuery("select pg_backend_pid(), pg_sleep(0.1)").onlyRow { try $0.decode(Int.self, at: 0) })
                }
            }
            return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
        }
        #expect(first.count == 3 && pool.statistics.idle == 3)
        try await terminate(Array(first))

        for _ in 0..<3 {
            let pid = try await pool.execute(as: owner, readOnly: true, backendPID)
            #expect(!first.contains(pid))
        }
        #expect(pool.statistics.connectionsOpened == 4)
        #expect(pool.statistics.size == 1)
    }

    /// A server that ends idle sessions (`idle_session_timeout`) says so and closes the
    /// socket; the read that finds out, unchecked, is run again on a fresh connection.
    @Test func aReadOnAConnectionTheServerTimedOutIsRunAgain() async throws {
        try await expectReplacement(readOnly: true) { pool, _ in
            try await pool.execute(as: owner, "set idle_session_timeout = 100" as PostgresQuery)
            try await Task.sleep(for: .milliseconds(400))
        }
    }

    /// A write is not retried after a lost connection (it may have committed), so its lease
    /// checks the idle connection first and never sends on one the server closed.
    @Test func aWriteIsNeverSentOnAConnectionTheServerClosed() async throws {
        try await expectReplacement(readOnly: false) { _, pid in try await terminate([pid]) }
    }

    /// After `disconnect` has the server drop the only connection of a pool of one (given the
    /// pool and the connection's backend), the next statement runs, on a fresh connection.
    private func expectReplacement(readOnly: Bool, _ disconnect: (PostgresPool, Int) async throws -> Void) async throws {
        let pool = try TestCluster.adminPool(.init(maxConnections: 1))
        defer { pool.close() }
        let firstPID = try await pool.execute(as: owner, backendPID)
        try await disconnect(pool, firstPID)
        let secondPID = try await pool.execute(as: owner, readOnly: readOnly, backendPID)
        #expect(secondPID != firstPID)
        #expect(pool.statistics.connectionsOpened == 2)
    }

    /// A session on a connection whose backend was terminated while it sat idle gets a fresh one.
    @Test func aSessionAfterTheBackendWasTerminatedGetsAFreshConnection() async throws {
        let pool = try TestCluster.adminPool(.init(maxConnections: 1))
        defer { pool.close() }
        let firstPID = try await pool.execute(as: owner, backendPID)
        try await terminate([firstPID])
        let (secondPID, answer) = try await pool.withSession { session in
            (session.backendPID, try await session.execute(PostgresQuery("select 1").value(Int.self)))
        }
        #expect(Int(secondPID) != firstPID)
        #expect(answer == 1)
    }

    /// Terminates backends and waits until they are gone and their farewells have arrived.
    private func terminate(_ pids: [Int]) async throws {
        let admin = try TestCluster.adminPool()
        defer { admin.close() }
        for pid in pids {
            try await admin.execute(as: owner, PostgresQuery("select pg_terminate_backend(\(pid))"))
        }
        for _ in 0..<100 {
            let alive = try await admin.execute(
                as: owner, PostgresQuery("select count(*) from pg_stat_activity where pid = any(\(pids))").value(Int.self))
            if alive == 0 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(100))
    }
}
