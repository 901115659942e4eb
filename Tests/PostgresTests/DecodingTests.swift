import Foundation
import Postgres
import TestSupport
import Testing

@Suite struct DecodingTests {
    let pool: PostgresPool

    init() throws {
        pool = try TestCluster.adminPool(.init(maxConnections: 1))
    }

    /// The one row `sql` returns.
    private func row(of sql: PostgresQuery) async throws -> PostgresRow {
        try await result(sql).row(0)
    }

    private func result(_ sql: PostgresQuery) async throws -> PostgresResult {
        try await pool.execute(as: TestCluster.superuser, sql)
    }

    private func decodingFails<T: PostgresDecodable>(_ sql: PostgresQuery, as type: T.Type) async throws -> PostgresError? {
        let row = try await self.row(of: sql)
        do {
            _ = try row.decode(type, at: 0)
            return nil
        } catch let error as PostgresError {
            return error
        }
    }

    @Test func mismatchedTypesThrowInsteadOfTrapping() async throws {
        #expect(try await decodingFails("select 'abc'::text", as: Int.self)?.kind == .decoding)
        #expect(try await decodingFails("select 1::int4", as: String.self)?.kind == .decoding)
        #expect(try await decodingFails("select 'x'::text", as: UUID.self)?.kind == .decoding)
        #expect(try await decodingFails("select now()::date", as: PostgresTimestamp.self)?.kind == .decoding)
        #expect(try await decodingFails("select 1::int4", as: Bool.self)?.kind == .decoding)
    }

    @Test func everyRowOfAManyRowResultChecksItsColumnTypes() async throws {
        // Results with several rows read each column's type once; the check still holds on
        // every row and column.
        let result = try await result("select i, i::text, gen_random_uuid() from generate_series(1, 3) i")
        for row in result.rows {
            #expect(try row.decode(Int32.self, at: 0) == Int32(row.index + 1))
            #expect(try row.decode(String.self, at: 1) == String(row.index + 1))
            _ = try row.decode(PostgresUUID.self, at: 2)
            #expect(throws: PostgresError.self) { try row.decode(String.self, at: 0) }
            #expect(throws: PostgresError.self) { try row.decode(Int.self, at: 1) }
            #expect(throws: PostgresError.self) { try row.decode(Int.self, at: 2) }
            #expect(throws: PostgresError.self) { try row.decode(Int.self, at: 3) }
        }
    }

    @Test func nullNeedsAnOptional() async throws {
        #expect(try await decodingFails("select null::text", as: String.self)?.kind == .decoding)
        let row = try await self.row(of: "select null::text, 'x'::text")
        #expect(try row.decode(String?.self, at: 0) == nil)
        #expect(try row.decode(String?.self, at: 1) == "x")
        // An empty value is not a NULL, in either direction.
        let empty = try await self.row(of: "select ''::text, null::text, ''::text")
        let (first, second, third) = try empty.decode((String, String?, String?).self)
        #expect(first == "" && second == nil && third == "")
    }

    @Test func outOfRangeIntegersThrow() async throws {
        #expect(try await decodingFails("select 3000000000::int8", as: Int32.self)?.kind == .decoding)
        let row = try await self.row(of: "select (-9223372036854775808)::int8, 9223372036854775807::int8")
        #expect(try row.decode(Int64.self, at: 0) == .min)
        #expect(try row.decode(Int64.self, at: 1) == .max)
    }

    @Test func missingColumnsThrow() async throws {
        let row = try await self.row(of: "select 1 as one")
        #expect(try row.decode(Int.self, "one") == 1)
        #expect(throws: PostgresError.self) { try row.decode(Int.self, "two") }
        #expect(throws: PostgresError.self) { try row.decode(Int.self, at: 5) }
    }

    @Test func aRowThatIsNotThereIsATypedErrorAtTheAccess() async throws {
        let none = PostgresQuery("select 1 where false")
        let empty = try await result(none)
        #expect(empty.rows.count == 0 && empty.first == nil)
        do {
            _ = try empty.row(0)
            Issue.record("row 0 of an empty result")
        } catch let error as PostgresError {
            #expect(error.kind == .missingRow)
        }
        #expect(try await pool.execute(as: TestCluster.superuser, none.firstRow { try $0.decode(Int.self, at: 0) }) == nil)
        do {
            _ = try await pool.execute(as: TestCluster.superuser, none.value(Int.self))
            Issue.record("read the only row of an empty result")
        } catch let error as PostgresError {
            #expect(error.kind == .missingRow)
        }
    }

    @Test func textReadInPlaceOutlivesTheRowsItCameFrom() async throws {
        // The result goes out of scope here; the values keep its memory alive.
        let (text, name, missing) = try await self.row(of: "select 'héllo ✓'::text, 'chirp'::name, null::text")
            .decode((PostgresText, PostgresText, PostgresText?).self)
        #expect(text.string == "héllo ✓")
        #expect(text.count == "héllo ✓".utf8.count)
        #expect(name.string == "chirp")
        #expect(missing == nil)
        #expect(try await decodingFails("select 1::int4", as: PostgresText.self)?.kind == .decoding)
        #expect(try await decodingFails("select null::text", as: PostgresText.self)?.kind == .decoding)
    }

    @Test func aDatabaseThatIsNotUTF8IsRefused() async throws {
        // Text is read in place as UTF-8; SQL_ASCII would store any bytes at all.
        let name = "latin_\(UUID().uuidString.prefix(8).lowercased())"
        try await pool.withSession { try await $0.unsafeExecuteScript("create database \(name) encoding 'SQL_ASCII' locale 'C' template template0") }
        let latin = try TestCluster.adminPool(database: name)
        defer { latin.close() }
        do {
            try await latin.execute(as: TestCluster.superuser, "select 1" as PostgresQuery)
            Issue.record("connected to a SQL_ASCII database")
        } catch let error as PostgresError {
            #expect(error.kind == .connection)
            #expect(error.message.contains("SQL_ASCII"), "\(error.message)")
        }
        try await pool.withSession { try await $0.unsafeExecuteScript("drop database \(name)") }
    }

    // Values arrive in binary; each type's binary form, read back against what the server says.

    @Test func integersOfEveryWidthDecodeFromBinary() async throws {
        let row = try await self.row(of: 
            "select (-32768)::int2, (-2147483648)::int4, 2147483647::int4, 4294967295::oid, (-1)::int8")
        let (small, low, high, oid, minusOne) = try row.decode((Int, Int32, Int32, Int64, Int64).self)
        #expect(small == -32768 && low == .min && high == .max && oid == 4_294_967_295 && minusOne == -1)
    }

    @Test func floatsAndNumericsDecodeAsDoubles() async throws {
        let row = try await self.row(of: """
            select 1.5::float8, 0.25::float4, 12345.678::numeric, (-0.001)::numeric, 0::numeric,
                   1e20::numeric, 'NaN'::numeric, 'Infinity'::numeric, 7::int4
            """)
        let values = try (0..<9).map { try row.decode(Double.self, at: $0) }
        #expect(Array(values[0...5]) == [1.5, 0.25, 12345.678, -0.001, 0, 1e20])
        #expect(values[6].isNaN)
        #expect(values[7] == .infinity)
        #expect(values[8] == 7)
    }

    @Test func booleansUUIDsBytesAndJSONDecodeFromBinary() async throws {
        let id = try #require(UUID(uuidString: "6F9619FF-8B86-D011-B42D-00CF4FC964FF"))
        let row = try await self.row(of: """
            select true, false, \(id)::uuid, '\\x00ff10'::bytea, ''::bytea, '{"a": [1, "é"]}'::jsonb, '{"b" : 2}'::json
            """)
        let (yes, no, decodedID, bytes, empty, jsonb, json) = try row.decode(
            (Bool, Bool, UUID, PostgresBytes, PostgresBytes, String, PostgresJSON).self)
        #expect(yes && !no)
        #expect(decodedID == id)
        #expect(bytes.bytes == [0x00, 0xff, 0x10] && empty.bytes.isEmpty)
        #expect(jsonb == #"{"a": [1, "é"]}"#)
        #expect(json.text == #"{"b" : 2}"#)
    }

    @Test func timestampsDecodeToTheMicrosecond() async throws {
        let row = try await self.row(of: """
            select '2000-01-01 00:00:00+00'::timestamptz, '1969-12-31 23:59:59.999999+00'::timestamptz,
                   '2026-11-30 10:53:13.123456+05:30'::timestamptz, '1900-03-01 12:00:00+00'::timestamptz
            """)
        let values = try (0..<4).map { try row.decode(PostgresTimestamp.self, at: $0).microsecondsSinceEpoch }
        #expect(values == [946_684_800_000_000, -1, 1_796_016_193_123_456, -2_203_848_000_000_000])
        #expect(try await decodingFails("select 'infinity'::timestamptz", as: PostgresTimestamp.self)?.kind == .decoding)
        #expect(try await decodingFails("select '-infinity'::timestamptz", as: Date.self)?.kind == .decoding)
    }

    @Test func valuesOfTheWrongSizeThrow() async throws {
        func fails<T: PostgresDecodable>(_ bytes: [UInt8], as _: T.Type, type: PostgresType) -> Bool {
            bytes.withUnsafeBytes { value in
                do {
                    _ = try T.decode(value, type: type)
                    return false
                } catch {
                    return (error as? PostgresError)?.kind == .decoding
                }
            }
        }
        #expect(fails([0, 0, 1], as: Int64.self, type: .int8))
        #expect(fails([0, 1], as: Int64.self, type: .int4))
        #expect(fails([1, 2, 3], as: UUID.self, type: .uuid))
        #expect(fails([0, 0, 0, 0], as: PostgresTimestamp.self, type: .timestamptz))
        #expect(fails([2], as: Bool.self, type: .bool))
        #expect(fails([0, 0], as: Double.self, type: .float8))
        #expect(fails([0, 1, 0, 0, 0, 0, 0, 0], as: Double.self, type: .numeric))  // one digit promised, none sent
        #expect(fails([2, 123], as: String.self, type: .jsonb))  // an unknown jsonb format version
    }
}
