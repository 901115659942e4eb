@testable import Chirp
import Foundation
import Postgres
import Testing

/// The response writer writes in place into a buffer of its own, and scans strings eight
/// bytes at a time: what it writes must still parse back to exactly what went in, wherever an
/// escape falls and however often the buffer grows.
@Suite struct JSONWriterTests {
    /// One value written alone, parsed back with the strict request parser.
    func roundTrip(capacity: Int = 4096, _ write: (inout JSONWriter) -> Void) -> (text: String, value: JSONValue?) {
        var writer = JSONWriter(capacity: capacity)
        write(&writer)
        let bytes = writer.bytes
        return (String(decoding: bytes, as: UTF8.self), JSONValue.parse(bytes))
    }

    @Test func everyEscapeAtEveryOffsetRoundTrips() {
        let specials: [Character] = ["\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1f}", "\u{7f}", "é", "😀"]
        for special in specials {
            for length in 0..<20 {
                for offset in 0...length {
                    var text = String(repeating: "a", count: length)
                    text.insert(special, at: text.index(text.startIndex, offsetBy: offset))
                    let (written, parsed) = roundTrip { $0.string(text) }
                    #expect(parsed == .string(text), "\(written)")
                }
            }
        }
    }

    @Test func everyASCIIByteIsEscapedAsJSONRequires() {
        let all = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self)
        let (text, parsed) = roundTrip { $0.string(all) }
        #expect(parsed == .string(all))
        #expect(text.contains(##"!\"#"##) && text.contains(#"[\\]"#))
        #expect(text.contains(#"\u0001"#) && text.contains(#"\u001f"#) && text.contains(#"\n"#))
        #expect(!text.utf8.contains { $0 < 0x20 })
    }

    @Test func aSmallBufferGrowsWithoutLosingBytes() {
        let body = String(repeating: "long body with \"quotes\" and \\ backslashes ", count: 200)
        let (_, parsed) = roundTrip(capacity: 16) { json in
            json.beginObject()
            json.key("items")
            json.beginArray()
            for index in 0..<50 {
                json.beginObject()
                json.key("n"); json.int(index)
                json.key("body"); json.string(body)
                json.endObject()
            }
            json.endArray()
            json.endObject()
        }
        let items: [JSONValue] = (0..<50).map { .object(["n": .number(Double($0)), "body": .string(body)]) }
        #expect(parsed == .object(["items": .array(items)]))
    }

    @Test func numbersUUIDsAndTimestampsAreWrittenInPlace() throws {
        let id = try #require(PostgresUUID(canonical: "6F9619FF-8B86-D011-B42D-00CF4FC964FF"))
        let (text, _) = roundTrip { json in
            json.beginArray()
            json.int(0); json.int(-7); json.int(Int.max); json.int(Int.min)
            json.uuid(id); json.optionalUUID(nil)
            json.timestamp(PostgresTimestamp(microsecondsSinceEpoch: 1_795_258_393_999_999))
            json.timestamp(PostgresTimestamp(microsecondsSinceEpoch: -1))
            json.bool(true); json.null()
            json.endArray()
        }
        #expect(text == #"[0,-7,9223372036854775807,-9223372036854775808,"6f9619ff-8b86-d011-b42d-00cf4fc964ff",null,"# +
            #""2026-11-21T10:53:13Z","1969-12-31T23:59:59Z",true,null]"#)
    }

    @Test func uuidTextParsesEitherCaseAndNothingElse() {
        let canonical = "00112233-4455-6677-8899-aabbccddeeff"
        #expect(PostgresUUID(canonical: canonical)?.lowercasedString == canonical)
        #expect(PostgresUUID(canonical: canonical.uppercased())?.lowercasedString == canonical)
        for bad in ["00112233-4455-6677-8899-aabbccddeefg", "00112233-4455-6677-8899-aabbccddeef", "00112233_4455-6677-8899-aabbccddeeff",
                    "0011223G-4455-6677-8899-aabbccddeeff", "00112233-4455-6677-8899-aabbccddee:f", "00112233-4455-6677-8899-aabbccddee@f"] {
            #expect(PostgresUUID(canonical: bad) == nil, "\(bad)")
        }
        // Every byte value in a digit's place: accepted exactly when it is a hex digit, and
        // read as that digit's value.
        for byte in UInt8.min...UInt8.max {
            var text = Array(canonical.utf8)
            text[35] = byte
            let parsed = String(bytes: text, encoding: .utf8).flatMap { PostgresUUID(canonical: $0) }
            let digits = Array("0123456789abcdef".utf8)
            let value = digits.firstIndex(of: byte) ?? ((0x41...0x46).contains(byte) ? Int(byte) - 0x41 + 10 : nil)
            #expect((parsed != nil) == (value != nil), "byte \(byte)")
            if let parsed, let value { #expect(parsed.low & 0xff == 0xf0 | UInt64(value), "byte \(byte)") }
        }
        // Every byte value survives the trip through text.
        let bytes: uuid_t = (0x00, 0x19, 0x2a, 0x3b, 0x4c, 0x5d, 0x6e, 0x7f, 0x80, 0x91, 0xa2, 0xb3, 0xc4, 0xd5, 0xe6, 0xff)
        let id = PostgresUUID(UUID(uuid: bytes))
        #expect(PostgresUUID(canonical: id.lowercasedString) == id)
        #expect(id.lowercasedString == id.uuid.uuidString.lowercased())
        #expect(id.uuid == UUID(uuid: bytes))
        #expect(id.high == 0x0019_2a3b_4c5d_6e7f && id.low == 0x8091_a2b3_c4d5_e6ff)
    }
}
