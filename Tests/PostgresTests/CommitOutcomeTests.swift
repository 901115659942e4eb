import Foundation
@testable import Postgres
import TestSupport
import Testing

/// A write whose connection breaks is never guessed about: the server says whether it
/// committed (`PostgresPool+CommitOutcome`). Aborted: it runs again, so the caller sees one
/// success and one row. Committed: the caller is told so. Unknowable: the caller is told that.
@Suite struct CommitOutcomeTests {
    /// The backend is killed while the write's transaction is open: it aborted, and the pool
    /// runs it again. Before, a write was never run again after a lost connection, and the
    /// caller was told it failed.
    @Test(.timeLimit(.minutes(1)))
    func aWriteKilledBeforeItsCommitRunsAgainAndIsStoredOnce() async throws {
        let database = try await TestDatabase.empty(prefix: "outcome")
        try await database.adminPool.withSession { try await $0.unsafeExecuteScript("create table notes (id serial primary key, note text)") }
        let pool = try TestCluster.adminPool(database: database.name)
        defer { pool.close() }

        let killer = Task {
            for _ in 0..<250 {
                let killed = try await database.scalar("""
                    select count(pg_terminate_backend(pid))::int from pg_stat_activity
                    where query like '%pg_sleep(0.7)%' and state = 'active' and pid <> pg_backend_pid()
                    """, as: Int.self)
                if killed > 0 { return killed }
                try await Task.sleep(for: .milliseconds(20))
            }
            return 0
        }
        try await pool.execute(
            as: TestCluster.superuser, "insert into notes (note) values ('once')" as PostgresQuery, "select pg_sleep(0.7)" as PostgresQuery)
        #expect(try await killer.value == 1, "the first attempt's backend was terminated")
        #expect(try await database.scalar("select count(*)::int from notes", as: Int.self) == 1)
    }

    /// The same in a transaction run statement by statement: lost before its commit, run again.
    @Test(.timeLimit(.minutes(1)))
    func aTransactionLostBeforeItsCommitRunsAgain() async throws {
        let database = try await TestDatabase.empty(prefix: "outcome")
        try await database.adminPool.withSession { try await $0.unsafeExecuteScript("create table notes (id serial primary key, note text)") }
        let pool = try TestCluster.adminPool(database: database.name)
        defer { pool.close() }
        let attempts = Counter()
        try await pool.withTransaction(as: TestCluster.superuser) { transaction in
            try await transaction.execute("insert into notes (note) values ('once')" as PostgresQuery)
            if attempts.next() == 1 {
                // The backend ends itself, as a crash or an administrator would end it.
                try await transaction.execute("select pg_terminate_backend(pg_backend_pid())" as PostgresQuery)
            }
        }
        #expect(attempts.value == 2)
        #expect(try await database.scalar("select count(*)::int from notes", as: Int.self) == 1)
    }

    /// A write's `COMMIT` leaves only once its id is back: cut after the statements went out
    /// and the server had time to run them, the write had not committed, so it runs again and
    /// is stored once. Sent with the rest, the commit would have run: two rows, or a caller
    /// told the outcome is unknown.
    @Test func aWriteCutBeforeItsIDArrivedNeverCommittedAndRunsAgain() async throws {
        let database = try await TestDatabase.empty(prefix: "outcome")
        try await database.adminPool.withSession { try await $0.unsafeExecuteScript("create table notes (id serial primary key, note text)") }
        let pool = try TestCluster.adminPool(database: database.name)
        defer { pool.close() }
        pool.faults.breakWrites(next: 1, at: .beforeTransactionID)
        try await pool.execute(as: TestCluster.superuser, "insert into notes (note) values ('once')" as PostgresQuery)
        #expect(try await database.scalar("select count(*)::int from notes", as: Int.self) == 1)
    }

    /// A transaction still running when its connection broke (its backend has not noticed
    /// yet) is waited for, briefly, rather than reported unknown.
    @Test func aTransactionStillInProgressIsWaitedFor() async throws {
        let database = try await TestDatabase.empty(prefix: "outcome")
        let pool = try TestCluster.adminPool(database: database.name)
        defer { pool.close() }
        let lost = PostgresError(.connection, message: "server closed the connection unexpectedly")
        let holder = try TestCluster.adminPool(database: database.name)
        defer { holder.close() }
        let outcome = try await holder.withSession { session in
            try await session.unsafeExecuteScript("begin")
            let id = try await session.execute(
                PostgresQuery("select pg_current_xact_id()::text").onlyRow { try $0.decode(String.self, at: 0) })
            let asking = Task { await pool.outcome(of: .init(transactionID: id, error: lost)).kind }
            try await Task.sleep(for: .milliseconds(200))
            try await session.unsafeExecuteScript("commit")
            return await asking.value
        }
        #expect(outcome == .committedUnanswered)
    }

    /// What the server says of a lost transaction is what the caller is told.
    @Test func aLostWritesOutcomeIsWhatTheServerSays() async throws {
        let database = try await TestDatabase.empty(prefix: "outcome")
        let pool = try TestCluster.adminPool(database: database.name)
        defer { pool.close() }
        let lost = PostgresError(.connection, message: "server closed the connection unexpectedly")

        let committed = try await database.scalar("select pg_current_xact_id()::text", as: String.self)
        #expect(await pool.outcome(of: .init(transactionID: committed, error: lost)).kind == .committedUnanswered)

        let aborted = try await pool.withSession { session in
            try await session.unsafeExecuteScript("begin")
            let id = try await session.execute(PostgresQuery("select pg_current_xact_id()::text").onlyRow { try $0.decode(String.self, at: 0) })
            try await session.unsafeExecuteScript("rollback")
            return id
        }
        #expect(await pool.outcome(of: .init(transactionID: aborted, error: lost)).kind == .lostBeforeCommit)

        // The id never arrived.
        #expect(await pool.outcome(of: .init(transactionID: nil, error: lost)).kind == .outcomeUnknown)

        // The database cannot be reached to ask.
        let unreachable = try PostgresPool(
            configuration: PostgresConfiguration(url: "postgres://postgres@127.0.0.1:1/nowhere"),
            pool: .init(maxConnections: 1, leaseTimeout: .seconds(2)))
        defer { unreachable.close() }
        #expect(await unreachable.outcome(of: .init(transactionID: committed, error: lost)).kind == .outcomeUnknown)
    }
}

/// How many times a body ran.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func next() -> Int { lock.withLock { count += 1; return count } }
}
