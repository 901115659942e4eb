import EventLoops
import Foundation
import Postgres
import Testing

@Suite struct TransactionTests {
    let pool: PostgresPool

    init() throws {
        let configuration = try TestDatabase.create(prefix: "transactions")
        let setup = try PostgresConnection(configuration: configuration)
        try setup.unsafeExecuteScript("""
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
        pool = PostgresPool(configuration: configuration, pool: .init(maxConnections: 1))
    }

    @Test func identityLastsForItsTransactionOnlyAndNeverLeaksToTheNextLease() throws {
        let reader = PostgresIdentity(role: "wrapper_test_reader", settings: [.init("app.user_id", "alice")])
        let seen = try pool.execute(as: reader, readOnly: true, [
            "select current_user::text, current_setting('app.user_id', true)",
        ])[0].rows[0].decode((String, String?).self)
        #expect(seen.0 == "wrapper_test_reader")
        #expect(seen.1 == "alice")

        // The same (only) connection, leased again without an identity.
        let after = try pool.withConnection { connection in
            try connection.query("select current_user::text, coalesce(current_setting('app.user_id', true), '')")
                .rows[0].decode((String, String).self)
        }
        #expect(after.0 == "postgres")
        #expect(after.1 == "")
    }

    @Test func identityIsResetEvenWhenTheTransactionFails() throws {
        let reader = PostgresIdentity(role: "wrapper_test_reader", settings: [.init("app.user_id", "mallory")])
        #expect(throws: PostgresError.self) {
            try pool.withTransaction(as: reader) { transaction in
                try transaction.query("select 1")
                try transaction.query("insert into notes (body) values (\("denied"))")  // no privilege
            }
        }
        let after = try pool.withConnection { connection in
            try connection.query("select current_user::text, coalesce(current_setting('app.user_id', true), '')")
                .rows[0].decode((String, String).self)
        }
        #expect(after == ("postgres", ""))
    }

    @Test func aThrowingBodyRollsBack() throws {
        struct Abort: Error {}
        let owner = PostgresIdentity(role: "postgres")
        #expect(throws: Abort.self) {
            try pool.withTransaction(as: owner) { transaction in
                try transaction.query("insert into notes (body) values (\("rolled back"))")
                throw Abort()
            }
        }
        let count = try pool.execute(as: owner, ["select count(*) from notes where body = 'rolled back'"])[0]
            .rows[0].decode(Int.self, at: 0)
        #expect(count == 0)
    }

    @Test func readOnlyTransactionsRefuseWrites() throws {
        do {
            try pool.execute(as: PostgresIdentity(role: "postgres"), readOnly: true, [
                "insert into notes (body) values (\("x"))",
            ])
            Issue.record("a read-only transaction wrote")
        } catch let error as PostgresError {
            #expect(error.sqlState == .readOnlySQLTransaction)
        }
    }

    @Test func serializationFailuresAndDeadlocksAreRetriedABoundedNumberOfTimes() throws {
        let owner = PostgresIdentity(role: "postgres")
        for code in ["40001", "40P01"] {
            var attempts = 0
            let value = try pool.withTransaction(as: owner) { transaction -> Int in
                attempts += 1
                if attempts == 1 {
                    try transaction.query("do $$ begin raise exception 'conflict' using errcode = '\(unescaped: code)'; end $$")
                }
                return try transaction.query("select 7").rows[0].decode(Int.self, at: 0)
            }
            #expect(value == 7)
            #expect(attempts == 2)
        }
        var attempts = 0
        #expect(throws: PostgresError.self) {
            try pool.withTransaction(as: owner) { transaction in
                attempts += 1
                try transaction.query("do $$ begin raise exception 'always' using errcode = '40001'; end $$")
            }
        }
        #expect(attempts == 3)
    }

    @Test func otherErrorsAreNotRetried() throws {
        var attempts = 0
        #expect(throws: PostgresError.self) {
            try pool.withTransaction(as: PostgresIdentity(role: "postgres")) { transaction in
                attempts += 1
                try transaction.query("select 1/0")
            }
        }
        #expect(attempts == 1)
    }

    @Test func aWholeTransactionTravelsInOnePipeline() throws {
        let owner = PostgresIdentity(role: "postgres")
        let results = try pool.execute(as: owner, [
            "insert into notes (body) values (\("piped")) returning id",
            "select count(*) from notes where body = \("piped")",
        ])
        #expect(results.count == 2)
        #expect(try results[1].rows[0].decode(Int.self, at: 0) >= 1)
    }
}

@Suite struct ConcurrentReadTests {
    @Test func twoReadsOverlapInsteadOfRunningOneAfterTheOther() async throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        let pool = PostgresPool(
            configuration: try TestDatabase.adminConfiguration(), pool: .init(maxConnections: 2), eventLoop: loop)
        let identity = PostgresIdentity(role: "postgres")
        _ = try await pool.executeConcurrently(as: identity, ["select 1"], ["select 2"])  // warm both
        let read: [PostgresQuery] = [
            "select extract(epoch from clock_timestamp())::float8",
            "select pg_sleep(0.5)",
            "select extract(epoch from clock_timestamp())::float8",
        ]
        let (first, second) = try await pool.executeConcurrently(as: identity, read, read)
        #expect(first.count == 3 && second.count == 3)
        // The server's clock, not the test's: each read was under way before the other ended.
        let (firstStart, firstEnd) = (try first[0].rows[0].decode(Double.self, at: 0), try first[2].rows[0].decode(Double.self, at: 0))
        let (secondStart, secondEnd) = (try second[0].rows[0].decode(Double.self, at: 0), try second[2].rows[0].decode(Double.self, at: 0))
        #expect(firstEnd - firstStart >= 0.5 && secondEnd - secondStart >= 0.5)
        #expect(secondStart < firstEnd && firstStart < secondEnd,
                "first ran \(firstStart)...\(firstEnd), second \(secondStart)...\(secondEnd)")
    }
}
