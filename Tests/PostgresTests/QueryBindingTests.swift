import Foundation
@testable import Postgres
import Testing

@Suite struct QueryBindingTests {
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

    @Test func statementsThatHashAlikeStayDistinct() throws {
        // Same length, same first, middle and last eight bytes: the cache's hash cannot tell
        // them apart, so only the whole-text comparison keeps their prepared statements apart.
        let first = "select $1::int8 + 1 as answer, 'aaaaaaaaaaaa' as filler, 'x' as tail"
        let second = "select $1::int8 + 2 as answer, 'aaaaaaaaaaaa' as filler, 'x' as tail"
        #expect(StatementKey(first).hashValue == StatementKey(second).hashValue)
        #expect(StatementKey(first) != StatementKey(second))
        let connection = try PostgresConnection(configuration: TestDatabase.adminConfiguration())
        for _ in 0..<2 {
            let results = try connection.pipeline([
                PostgresQuery(sql: first, bindings: ["10"]), PostgresQuery(sql: second, bindings: ["10"]),
            ])
            #expect(try results.map { try $0.rows[0].decode(Int.self, at: 0) } == [11, 12])
        }
        #expect(connection.preparedStatements.count == 2)
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

    @Test func aLargeParameterIsSentWholeAndNotKeptByTheConnection() throws {
        let connection = try PostgresConnection(configuration: TestDatabase.adminConfiguration())
        let large = String(repeating: "chirp ", count: 40_000)
        let length = try connection.query("select length(\(large)::text)").rows[0].decode(Int.self, at: 0)
        #expect(length == large.utf8.count)
        #expect(connection.parameterText.capacity <= 64 * 1024)
        // A small one keeps its buffer for the next statement.
        _ = try connection.query("select \("small")::text")
        #expect(connection.parameterText.capacity > 0)
    }

    @Test func valuesRoundTripThroughTheServer() throws {
        let connection = try PostgresConnection(configuration: TestDatabase.adminConfiguration())
        let injection = "'); drop table pg_class; --"
        let id = UUID()
        let stamp = PostgresTimestamp(microsecondsSinceEpoch: 1_795_000_000_123_457)
        let bytes = PostgresBytes([0, 1, 0xfe, 0xff])
        let row = try #require(try connection.query("""
            select \(injection)::text, \(42)::int8, \(true)::bool, \(id)::uuid,
                   \(stamp)::timestamptz, \(bytes)::bytea, \(-7)::int4, \(["a\"b", "c,d"])::text[] = array['a"b', 'c,d']
            """).first)
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

    @Test func nullEmptyAndMultibyteValuesKeepTheirPlaces() throws {
        // The values travel to libpq packed in one buffer: each must start and end where it should.
        let connection = try PostgresConnection(configuration: TestDatabase.adminConfiguration())
        let missing: String? = nil
        let row = try #require(try connection.query("""
            select \("héllo ✓")::text, \(missing)::text is null, \("")::text, \(missing)::text is null, \("z")::text
            """).first)
        let (first, firstIsNull, empty, secondIsNull, last) = try row.decode((String, Bool, String?, Bool, String).self)
        #expect(first == "héllo ✓")
        #expect(firstIsNull && secondIsNull)
        #expect(empty == "")
        #expect(last == "z")
    }

    @Test func timestampsKeepMicrosecondsAndParseOffsets() throws {
        let connection = try PostgresConnection(configuration: TestDatabase.adminConfiguration())
        let row = try #require(try connection.query("""
            select '2026-11-30 10:53:13.000001+00'::timestamptz,
                   '2026-11-30 16:23:13.5+05:30'::timestamptz,
                   '1969-12-31 23:59:59.999999+00'::timestamptz
            """).first)
        let (first, second, beforeEpoch) = try row.decode((PostgresTimestamp, PostgresTimestamp, PostgresTimestamp).self)
        #expect(first.microsecondsSinceEpoch % 1_000_000 == 1)
        #expect(first.iso8601Seconds == "2026-11-30T10:53:13Z")
        #expect(second.microsecondsSinceEpoch - first.microsecondsSinceEpoch == 499_999)
        #expect(beforeEpoch.microsecondsSinceEpoch == -1)
        #expect(beforeEpoch.postgresText == "1969-12-31T23:59:59.999999Z")
    }

    @Test func jsonColumnsDecode() throws {
        struct Pair: Decodable, Equatable { var a: Int; var b: String }
        let connection = try PostgresConnection(configuration: TestDatabase.adminConfiguration())
        let row = try #require(try connection.query("select jsonb_build_object('a', \(1)::int, 'b', \("x")::text)").first)
        let json = try row.decode(PostgresJSON.self, at: 0)
        #expect(try json.decode(Pair.self) == Pair(a: 1, b: "x"))
    }
}
