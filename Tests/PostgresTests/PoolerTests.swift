import Foundation
@testable import Postgres
import TestSupport
import Testing

/// The wrapper behind PgBouncer in transaction mode with Debian's default settings (no
/// `ignore_startup_parameters`, no prepared statement support), which `scripts/test` starts:
/// each transaction may run on another server connection than the last.
@Suite(.timeLimit(.minutes(1))) struct PoolerTests {
    let owner = TestCluster.superuser

    private func pooledPool(database: String = "postgres", size: Int = 1) throws -> PostgresPool {
        try PostgresPool(
            configuration: TestCluster.throughPooler(TestCluster.adminConfiguration(database: database)),
            pool: .init(maxConnections: size), eventLoop: TestCluster.eventLoop)
    }

    private func reusesStatements(_ pool: PostgresPool) async throws -> Bool {
        let connection = try await pool.lease(count: 1, on: pool.eventLoop)[0]
        defer { pool.release(connection) }
        return connection.reusesStatements
    }

    @Test func aPoolerIsRecognisedAndADirectConnectionIsNot() async throws {
        let direct = try TestCluster.adminPool(.init(maxConnections: 1))
        defer { direct.close() }
        let pooled = try pooledPool()
        defer { pooled.close() }
        #expect(try await reusesStatements(direct))
        #expect(try await reusesStatements(pooled) == false)
    }

    /// Two clients taking turns: each transaction gets the server connection the other just
    /// left. Statements prepared by name would collide there (`42P05 prepared statement
    /// "chirp_0" already exists`) or run the other client's statement under the same name.
    @Test func clientsTakingTurnsOnSharedServerConnectionsGetTheirOwnStatements() async throws {
        let first = try pooledPool()
        defer { first.close() }
        let second = try pooledPool()
        defer { second.close() }
        for round in 0..<20 {
            let sum = try await first.execute(as: owner, PostgresQuery("select \(round)::int8 + 1").value(Int.self))
            let text = try await second.execute(
                as: owner, PostgresQuery("select 'round ' || \(round)::int8").value(String.self))
            let pair = try await first.execute(
                as: owner, readOnly: true,
                PostgresQuery("select \(round)::int8 * 2").value(Int.self),
                PostgresQuery("select \("chirp")::text || \(round)::int8").value(String.self))
            #expect(sum == round + 1)
            #expect(text == "round \(round)")
            #expect(pair == (round * 2, "chirp\(round)"))
        }
    }

    /// The connection sends no session settings at startup (a pooler would refuse `options`,
    /// and a setting would not follow the client to the next server connection): values read
    /// and written must not depend on the database's time zone or date style.
    @Test func timestampsDoNotDependOnTheServersTimeZoneOrDateStyle() async throws {
        let database = try await TestDatabase.empty(prefix: "zone")
        try await database.execute("alter database \(unescaped: database.name) set timezone = 'America/St_Johns'")
        try await database.execute("alter database \(unescaped: database.name) set datestyle = 'SQL, DMY'")
        let pooled = try pooledPool(database: database.name)
        defer { pooled.close() }
        let sent = PostgresTimestamp(microsecondsSinceEpoch: 1_785_000_123_456_789)
        let (zone, echoed, hours) = try await pooled.execute(
            as: owner, readOnly: true,
            PostgresQuery("select current_setting('TimeZone')").value(String.self),
            PostgresQuery("select \(sent)::timestamptz").value(PostgresTimestamp.self),
            PostgresQuery("select extract(epoch from \(sent)::timestamptz)::int8 / 3600").value(Int.self))
        #expect(zone == "America/St_Johns")
        #expect(echoed == sent)
        #expect(hours == 1_785_000_123 / 3600)
    }
}
