import EventLoops
import Foundation
@testable import Postgres
import TestSupport
import Testing

@Suite struct QueryBindingTests {
    /// The one row `sql` returns, as superuser.
    private func row(of sql: PostgresQuery) async throws -> PostgresRow {
        let pool = try TestCluster.adminPool(.init(maxConnections: 1))
        defer { pool.close() }
        return try await pool.execute(as: TestCluster.superuser, sql.onlyRow { $0 })
    }

    /// A leased connection of its own, to look at its state between statements.
    private func withConnection<T>(_ body: (PostgresConnection, EventLoop) async throws -> T) async throws -> T {
        let pool = try TestCluster.adminPool(.init(maxConnections: 1))
        defer { pool.close() }
        let connection = try await pool.lease(count: 1, on: pool.eventLoop)[0]
        defer { pool.release(connection) }
        return try await body(connection, pool.eventLoop)
    }

    @Test func interpolationBindsParametersInsteadOfSplicingText() {
        let name = "o'brien"
        let limit = 20
        let query: PostgresQuery = "select * from users where username = \(name) limit \(limit)"
        #expect(query.sql == "select * from users where username = $1 limit $2")
        #expect(query.bindings == ["o'brien", "20"])
    }

    @Test func placeholdersCountPastNine() {
        let values = Array(1...12)
        var interpolation = PostgresQuery.StringInterpolation(literalCapacity: 0, interpolationCount: values.count)
        interpolation.appendLiteral("select ")
        for value in values { interpolation.appendInterpolation(value); interpolation.appendLiteral(",") }
        let query = PostgresQuery(stringInterpolation: interpolation)
        #expect(query.sql == "select $1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,")
        #expect(query.bindings == values.map { String($0) })
    }

    @Test func statementsThatHashAlikeStayDistinct() async throws {
        // Same length, same first, middle and last eight bytes: the cache's hash cannot tell
        // them apart, so only the whole-text comparison keeps their prepared statements apart.
        let first = "select $1::int8 + 1 as answer, 'aaaaaaaaaaaa' as filler, 'x' as tail"
        let second = "select $1::int8 + 2 as answer, 'aaaaaaaaaaaa' as filler, 'x' as tail"
        #expect(StatementKey(first).hashValue == StatementKey(second).hashValue)
        #expect(StatementKey(first) != StatementKey(second))
        try await withConnection { connection, loop in
            for _ in 0..<2 {
                let results = try await connection.pipeline([
                    PostgresQuery(sql: first, bindings: ["10"]), PostgresQuery(sql: second, bindings: ["10"]),
                ], on: loop)
                #expect(try results.map { try $0.row(0).decode(Int.self, at: 0) } == [11, 12])
            }
            #expect(connection.preparedStatements.count == 2)
        }
    }

    @Test func nilBindsAsNull() {
        let missing: String? = nil
        let query: PostgresQuery = "select \(missing)"
        #expect(query.sql == "select $1")
        #expect(query.bindings == [nil])
    }

    @Test func unescapedTextIsSplicedOnlyWhenAskedLoudly() {
        let query: PostgresQuery = "select * from \(unescaped: "posts") where id = \(UUID(uuidString: "6F9619FF-8B86-D011-B42D-00CF4FC964FF")!)"
        #expect(query.sql == "select * from posts where id = $1")
        #expect(query.bindings == ["6f9619ff-8b86-d011-b42d-00cf4fc964ff"])
    }

    @Test func aLargeParameterIsSentWholeAndNotKeptByTheConnection() async throws {
        try await withConnection { connection, loop in
            let large = String(repeating: "chirp ", count: 40_000)
            let length = try await connection.pipeline(["select length(\(large)::text)"], on: loop)[0].row(0).decode(Int.self, at: 0)
            #expect(length == large.utf8.count)
            #expect(connection.parameterText.capacity <= 64 * 1024)
            // A small one keeps its buffer for the next statement.
            _ = try await connection.pipeline(["select \("small")::text"], on: loop)
            #expect(connection.parameterText.capacity > 0)
        }
    }

    @Test func valuesRoundTripThroughTheServer() async throws {
        let injection = "'); drop table pg_class; --"
        let id = UUID()
        let stamp = PostgresTimestamp(microsecondsSinceEpoch: 1_795_000_000_123_457)
        let bytes = PostgresBytes([0, 1, 0xfe, 0xff])
        let row = try await self.row(of: """
            select \(injection)::text, \(42)::int8, \(true)::bool, \(id)::uuid,
                   \(stamp)::timestamptz, \(bytes)::bytea, \(-7)::int4, \(["a\"b", "c,d"])::text[] = array['a"b', 'c,d']
            """)
        let (text, number, flag, uuid, timestamp, data, small, arrayMatches) = try row.decode(
            (String, Int, Bool, UUID, PostgresTimestamp, PostgresBytes, Int32, Bool).self)
        #expect(text == injection)
        #expect(number == 42)
        #expect(flag)
        #expect(uuid == id)
        #expect(timestamp == stamp)
        #expect(data == bytes)
        #expect(small == -7)
        #expect(arrayMatches)
    }

    @Test func nullEmptyAndMultibyteValuesKeepTheirPlaces() async throws {
        // The values travel to libpq packed in one buffer: each must start and end where it should.
        let missing: String? = nil
        let row = try await self.row(of: """
            select \("héllo ✓")::text, \(missing)::text is null, \("")::text, \(missing)::text is null, \("z")::text
            """)
        let (first, firstIsNull, empty, secondIsNull, last) = try row.decode((String, Bool, String?, Bool, String).self)
        #expect(first == "héllo ✓")
        #expect(firstIsNull && secondIsNull)
        #expect(empty == "")
        #expect(last == "z")
    }

    @Test func timestampsKeepMicrosecondsAndParseOffsets() async throws {
        let row = try await self.row(of: """
            select '2026-11-30 10:53:13.000001+00'::timestamptz,
                   '2026-11-30 16:23:13.5+05:30'::timestamptz,
                   '1969-12-31 23:59:59.999999+00'::timestamptz
            """)
        let (first, second, beforeEpoch) = try row.decode((PostgresTimestamp, PostgresTimestamp, PostgresTimestamp).self)
        #expect(first.microsecondsSinceEpoch % 1_000_000 == 1)
        #expect(first.iso8601Seconds == "2026-11-30T10:53:13Z")
        #expect(second.microsecondsSinceEpoch - first.microsecondsSinceEpoch == 499_999)
        #expect(beforeEpoch.microsecondsSinceEpoch == -1)
        #expect(beforeEpoch.postgresText == "1969-12-31T23:59:59.999999Z")
    }

    @Test func jsonColumnsDecode() async throws {
        struct Pair: Decodable, Equatable { var a: Int; var b: String }
        let row = try await self.row(of: "select jsonb_build_object('a', \(1)::int, 'b', \("x")::text)")
        let json = try row.decode(PostgresJSON.self, at: 0)
        #expect(try json.decode(Pair.self) == Pair(a: 1, b: "x"))
    }
}
