import Foundation
import Postgres
import Testing

@Suite struct ErrorTests {
    @Test func serverErrorsCarrySQLStateAndConstraint() throws {
        let connection = try PostgresConnection(configuration: try TestDatabase.create())
        try connection.unsafeExecuteScript("create table things (name text constraint things_name_key unique)")
        try connection.query("insert into things values (\("a"))")
        do {
            try connection.query("insert into things values (\("a"))")
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

    @Test func syntaxErrorsAndUnknownTablesAreNamed() throws {
        let connection = try PostgresConnection(configuration: TestDatabase.adminConfiguration())
        #expect(throws: PostgresError.self) { try connection.query("selec 1") }
        do { try connection.query("selec 1") } catch let error as PostgresError {
            #expect(error.sqlState == .syntaxError)
        }
        do { try connection.query("select * from no_such_table") } catch let error as PostgresError {
            #expect(error.sqlState == .undefinedTable)
        }
        // The connection is still usable after errors.
        #expect(try connection.query("select 1").first?.decode(Int.self, at: 0) == 1)
    }

    @Test func aFailedStatementInAPipelineSkipsTheRestAndReportsTheFirstError() throws {
        let connection = try PostgresConnection(configuration: TestDatabase.adminConfiguration())
        do {
            try connection.pipeline(["select 1", "select 1/0", "select no_such_column"])
            Issue.record("pipeline with a failing statement succeeded")
        } catch let error as PostgresError {
            #expect(error.sqlState == SQLState("22012"))
        }
        let results = try connection.pipeline(["select 1", "select 2"])
        #expect(try results.map { try $0.rows[0].decode(Int.self, at: 0) } == [1, 2])
    }

    /// A server that ends an idle session says why before it closes the socket; the next
    /// statement on that connection fails as a lost connection, which the pool retries for reads.
    @Test func anIdleSessionTimeoutIsALostConnection() throws {
        let connection = try PostgresConnection(configuration: TestDatabase.adminConfiguration())
        try connection.query("set idle_session_timeout = 100")
        Thread.sleep(forTimeInterval: 0.4)
        do {
            try connection.query("select 1")
            Issue.record("a statement ran on a session the server had ended")
        } catch let error as PostgresError {
            #expect(error.isConnectionLost)
        }
    }

    @Test func badConnectionSettingsAreClearErrors() throws {
        #expect(throws: PostgresError.self) { try PostgresConfiguration(url: "postgres://host:notaport/db?nonsense=1") }
        var configuration = try TestDatabase.adminConfiguration()
        configuration.set("port", "1")
        do {
            _ = try PostgresConnection(configuration: configuration)
            Issue.record("connected to port 1")
        } catch let error as PostgresError {
            #expect(error.kind == .connection)
            #expect(error.isConnectionLost)
        }
    }
}
