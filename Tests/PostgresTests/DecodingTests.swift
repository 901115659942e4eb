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
}
