import Foundation
import Postgres
import Synchronization
import TestSupport
import Testing

/// Transactions as an identity: one round trip, committed or rolled back, retried when safe.
@Suite(.timeLimit(.minutes(1))) struct TransactionTests {
    let database: TestDatabase
    /// One connection, so that every lease reuses the connection the previous one had.
    let pool: PostgresPool
    let owner = TestCluster.superuser
    let reader = PostgresIdentity(role: "wrapper_test_reader", settings: [.init("app.user_id", "alice")])
    let notes = PostgresQuery("select count(*) from notes where body = 'kept'").value(Int.self)
    /// Who the next statement runs as, and its `app.user_id`.
    let whoAmI = PostgresQuery("select current_user::text, coalesce(current_setting('app.user_id', true), '')")
        .onlyRow { try $0.decode((String, String).self) }

    init() async throws {
        database = try await .empty(prefix: "transactions")
        try await database.adminPool.withSession { session in
            try await session.unsafeExecuteScript("""
                do $$ begin
                    if not exists (select from pg_roles where rolname = 'wrapper_test_reader') then
                        create role wrapper_test_reader nologin;
                    end if;
                exception
                    -- Suites start at once; roles are cluster-wide: another may have just made it.
                    when duplicate_object or unique_violation then null;
                end $$;
                create table notes (id serial primary key, body text not null);
                grant select on notes to wrapper_test_reader;
                """)
        }
        pool = try PostgresPool(configuration: database.admin, pool: .init(maxConnections: 1), eventLoop: TestCluster.eventLoop)
    }

    @Test func identityLastsForItsTransactionOnlyAndNeverLeaksToTheNextLease() async throws {
        #expect(try await pool.execute(as: reader, readOnly: true, whoAmI) == ("wrapper_test_reader", "alice"))
        // The same (only) connection, leased again as the superuser without settings.
        #expect(try await pool.execute(as: owner, whoAmI) == ("postgres", ""))
    }

    @Test func identityIsResetEvenWhenTheTransactionFails() async throws {
        await #expect(throws: PostgresError.self) {
            try await pool.withTransaction(as: reader) { transaction in
                try await transaction.execute("select 1" as PostgresQuery)
                try await transaction.execute(PostgresQuery("insert into notes (body) values (\("denied"))"))  // no privilege
            }
        }
        #expect(try await pool.execute(as: owner, whoAmI) == ("postgres", ""))
    }

    @Test func withTransactionCommitsWhatItsBodyWrote() async throws {
        let seenInside = try await pool.withTransaction(as: owner) { transaction in
            try await transaction.execute(PostgresQuery("insert into notes (body) values (\("kept"))"))
            return try await transaction.execute(notes)
        }
        #expect(seenInside == 1)
        // Another session sees it: it was committed, not merely written.
        #expect(try await database.execute(notes) == 1)
        #expect(pool.statistics.idle == 1)
    }

    @Test func aThrowingBodyRollsBackOnItsConnectionAndIsNotRetried() async throws {
        struct Abort: Error {}
        let attempts = Atomic<Int>(0)
        await #expect(throws: Abort.self) {
            try await pool.withTransaction(as: owner) { transaction in
                attempts.add(1, ordering: .relaxed)
                try await transaction.execute(PostgresQuery("insert into notes (body) values (\("rolled back"))"))
                throw Abort()
            }
        }
        #expect(attempts.load(ordering: .relaxed) == 1)
        #expect(try await database.scalar("select count(*) from notes where body = 'rolled back'", as: Int.self) == 0)
        // Rolled back on its connection, which went back to the pool rather than being closed.
        #expect(pool.statistics.connectionsOpened == 1)
    }

    @Test func aTransactionOrSessionUsedAfterItsBodyThrows() async throws {
        let escapedTransaction = try await pool.withTransaction(as: owner) { $0 }
        await #expect(throws: PostgresError.self) { try await escapedTransaction.execute("select 1" as PostgresQuery) }
        let escapedSession = try await pool.withSession { $0 }
        await #expect(throws: PostgresError.self) { try await escapedSession.execute("select 1" as PostgresQuery) }
    }

    @Test func readOnlyTransactionsRefuseWrites() async throws {
        do {
            try await pool.execute(as: owner, readOnly: true, PostgresQuery("insert into notes (body) values (\("x"))"))
            Issue.record("a read-only transaction wrote")
        } catch let error as PostgresError {
            #expect(error.sqlState == .readOnlySQLTransaction)
        }
    }

    @Test func serializationFailuresAndDeadlocksAreRetriedABoundedNumberOfTimes() async throws {
        for code in ["40001", "40P01"] {
            let attempts = Atomic<Int>(0)
            let value = try await pool.withTransaction(as: owner) { transaction in
                if attempts.add(1, ordering: .relaxed).newValue == 1 {
                    try await transaction.execute(raising(code))
                }
                return try await transaction.execute(PostgresQuery("select 7").value(Int.self))
            }
            #expect(value == 7)
            #expect(attempts.load(ordering: .relaxed) == 2)
        }
        #expect(try await attemptsBeforeGivingUp(on: raising("40001")) == 3)
    }

    @Test func otherErrorsAreNotRetried() async throws {
        #expect(try await attemptsBeforeGivingUp(on: "select 1/0") == 1)
    }

    @Test func aWholeTransactionTravelsInOnePipeline() async throws {
        let (inserted, count) = try await pool.execute(
            as: owner,
            PostgresQuery("insert into notes (body) values (\("piped")) returning id").value(Int32.self),
            PostgresQuery("select count(*) from notes where body = \("piped")").value(Int.self))
        #expect(inserted > 0)
        #expect(count >= 1)
    }

    /// How many times `withTransaction` ran a body that always fails with `statement`.
    private func attemptsBeforeGivingUp(on statement: PostgresQuery) async throws -> Int {
        let attempts = Atomic<Int>(0)
        await #expect(throws: PostgresError.self) {
            try await pool.withTransaction(as: owner) { transaction in
                attempts.add(1, ordering: .relaxed)
                try await transaction.execute(statement)
            }
        }
        return attempts.load(ordering: .relaxed)
    }

    private func raising(_ code: String) -> PostgresQuery {
        "do $$ begin raise exception 'conflict' using errcode = '\(unescaped: code)'; end $$"
    }
}
