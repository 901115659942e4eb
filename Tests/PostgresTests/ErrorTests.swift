import Foundation
import Postgres
import TestSupport
import Testing

@Suite struct ErrorTests {
    let owner = TestCluster.superuser

    @Test func serverErrorsCarrySQLStateAndConstraint() async throws {
        let database = try await TestDatabase.empty()
        try await database.adminPool.withSession { try await $0.unsafeExecuteScript("create table things (name text constraint things_name_key unique)") }
        let insert = PostgresQuery("insert into things values (\("a"))")
        try await database.execute(insert)
        do {
            try await database.execute(insert)
            Issue.record("a duplicate insert succeeded")
        } catch let error as PostgresError {
            #expect(error.kind == .server)
            #expect(error.sqlState == .uniqueViolation)
            #expect(error.sqlState?.class == .integrityConstraintViolation)
            #expect(error.constraint == "things_name_key")
            #expect(error.table == "things")
            #expect(error.detail?.contains("already exists") == true)
        }
    }

    @Test func syntaxErrorsAndUnknownTablesAreNamedAndTheConnectionStaysUsable() async throws {
        let pool = try TestCluster.adminPool(.init(maxConnections: 1))
        defer { pool.close() }
        let (syntax, table, after) = try await pool.withSession { session in
            (try await sqlState(of: "selec 1", in: session), try await sqlState(of: "select * from no_such_table", in: session),
             try await session.execute(PostgresQuery("select 1").value(Int.self)))
        }
        #expect(syntax == .syntaxError)
        #expect(table == .undefinedTable)
        #expect(after == 1)
    }

    @Test func aFailedStatementInAPipelineSkipsTheRestAndReportsTheFirstError() async throws {
        let pool = try TestCluster.adminPool(.init(maxConnections: 1))
        defer { pool.close() }
        try await pool.withSession { session in
            let one = PostgresQuery("select 1").value(Int.self)
            do {
                try await session.execute(one, "select 1/0" as PostgresQuery, "select no_such_column" as PostgresQuery)
                Issue.record("pipeline with a failing statement succeeded")
            } catch let error as PostgresError {
                #expect(error.sqlState == SQLState("22012"))
            }
            #expect(try await session.execute(one, PostgresQuery("select 2").value(Int.self)) == (1, 2))
        }
    }

    /// A server that ends an idle session says why before it closes the socket; the next
    /// statement on that connection fails as a lost connection, which the pool retries for reads.
    @Test func anIdleSessionTimeoutIsALostConnection() async throws {
        let pool = try TestCluster.adminPool(.init(maxConnections: 1))
        defer { pool.close() }
        try await pool.withSession { session in
            try await session.execute("set idle_session_timeout = 100" as PostgresQuery)
            try await Task.sleep(for: .milliseconds(400))
            do {
                try await session.execute("select 1" as PostgresQuery)
                Issue.record("a statement ran on a session the server had ended")
            } catch let error as PostgresError {
                #expect(error.isConnectionLost)
            }
        }
    }

    @Test func badConnectionSettingsAreClearErrors() async throws {
        #expect(throws: PostgresError.self) { try PostgresConfiguration(url: "postgres://host:notaport/db?nonsense=1") }
        var configuration = try TestCluster.adminConfiguration()
        configuration.set("port", "1")
        let pool = try PostgresPool(configuration: configuration, eventLoop: TestCluster.eventLoop)
        defer { pool.close() }
        do {
            try await pool.execute(as: owner, "select 1" as PostgresQuery)
            Issue.record("connected to port 1")
        } catch let error as PostgresError {
            #expect(error.kind == .connection)
            #expect(error.isConnectionLost)
        }
        #expect(pool.statistics.size == 0)
    }

    private func sqlState(of statement: PostgresQuery, in session: PostgresSession) async throws -> SQLState? {
        do {
            try await session.execute(statement)
            return nil
        } catch let error as PostgresError {
            return error.sqlState
        }
    }
}
