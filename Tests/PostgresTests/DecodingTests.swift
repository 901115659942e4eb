import Foundation
import Postgres
import Testing

@Suite struct DecodingTests {
    let connection: PostgresConnection

    init() throws {
        connection = try PostgresConnection(configuration: TestDatabase.adminConfiguration())
    }

    private func decodingFails<T: PostgresDecodable>(_ sql: PostgresQuery, as type: T.Type) throws -> PostgresError? {
        let row = try #require(try connection.query(sql).first)
        do {
            _ = try row.decode(type, at: 0)
            return nil
        } catch let error as PostgresError {
            return error
        }
    }

    @Test func mismatchedTypesThrowInsteadOfTrapping() throws {
        #expect(try decodingFails("select 'abc'::text", as: Int.self)?.kind == .decoding)
        #expect(try decodingFails("select 1::int4", as: String.self)?.kind == .decoding)
        #expect(try decodingFails("select 'x'::text", as: UUID.self)?.kind == .decoding)
        #expect(try decodingFails("select now()::date", as: PostgresTimestamp.self)?.kind == .decoding)
        #expect(try decodingFails("select 1::int4", as: Bool.self)?.kind == .decoding)
    }

    @Test func nullNeedsAnOptional() throws {
        #expect(try decodingFails("select null::text", as: String.self)?.kind == .decoding)
        let row = try #require(try connection.query("select null::text, 'x'::text").first)
        #expect(try row.decode(String?.self, at: 0) == nil)
        #expect(try row.decode(String?.self, at: 1) == "x")
        // An empty value is not a NULL, in either direction.
        let empty = try #require(try connection.query("select ''::text, null::text, ''::text").first)
        let (first, second, third) = try empty.decode((String, String?, String?).self)
        #expect(first == "" && second == nil && third == "")
    }

    @Test func outOfRangeIntegersThrow() throws {
        #expect(try decodingFails("select 3000000000::int8", as: Int32.self)?.kind == .decoding)
        let row = try #require(try connection.query("select (-9223372036854775808)::int8, 9223372036854775807::int8").first)
        #expect(try row.decode(Int64.self, at: 0) == .min)
        #expect(try row.decode(Int64.self, at: 1) == .max)
    }

    @Test func missingColumnsThrow() throws {
        let row = try #require(try connection.query("select 1 as one").first)
        #expect(try row.decode(Int.self, "one") == 1)
        #expect(throws: PostgresError.self) { try row.decode(Int.self, "two") }
        #expect(throws: PostgresError.self) { try row.decode(Int.self, at: 5) }
    }

    @Test func textReadInPlaceOutlivesTheRowsItCameFrom() throws {
        // The result goes out of scope here; the values keep its memory alive.
        let (text, name, missing) = try {
            let row = try #require(try connection.query("select 'héllo ✓'::text, 'chirp'::name, null::text").first)
            return try row.decode((PostgresText, PostgresText, PostgresText?).self)
        }()
        #expect(text.string == "héllo ✓")
        #expect(text.count == "héllo ✓".utf8.count)
        #expect(name.string == "chirp")
        #expect(missing == nil)
        #expect(try decodingFails("select 1::int4", as: PostgresText.self)?.kind == .decoding)
        #expect(try decodingFails("select null::text", as: PostgresText.self)?.kind == .decoding)
    }

    @Test func aDatabaseThatIsNotUTF8IsRefused() throws {
        // Text is read in place as UTF-8; SQL_ASCII would store any bytes at all.
        let name = "latin_\(UUID().uuidString.prefix(8).lowercased())"
        try connection.unsafeExecuteScript("create database \(name) encoding 'SQL_ASCII' locale 'C' template template0")
        defer { try? connection.unsafeExecuteScript("drop database \(name)") }
        do {
            _ = try PostgresConnection(configuration: TestDatabase.adminConfiguration(database: name))
            Issue.record("connected to a SQL_ASCII database")
        } catch let error as PostgresError {
            #expect(error.kind == .connection)
            #expect(error.message.contains("SQL_ASCII"), "\(error.message)")
        }
    }
}
