import Foundation
@testable import Chirp
import HTTP
import Postgres
import Testing

@Suite struct CursorCodecTests {
    @Test func base64URLMatchesFoundationAtEveryLength() throws {
        for length in 0...40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 251) }
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            let encoded = Base64URL.encode(bytes)
            #expect(encoded == expected, "length \(length)")
            #expect(Base64URL.encode(bytes[...]) == expected, "length \(length), not contiguous as an array")
            #expect(Base64URL.decode(Substring(encoded)) == bytes, "length \(length)")
        }
    }

    @Test func aCursorOpensOnlyItsOwnListUntouched() throws {
        let codec = CursorCodec(secret: Array(repeating: 7, count: 32))
        let position = KeysetPosition(
            timestamp: PostgresTimestamp(microsecondsSinceEpoch: 1_795_000_000_123_457),
            id: PostgresUUID(high: 0x0123_4567_89ab_cdef, low: 0xfedc_ba98_7654_3210))
        for cursor in [ListCursor(position: position, floor: nil), ListCursor(position: position, floor: .bottom)] {
            let text = cursor.encode(with: codec, scope: "posts/a/comments")
            #expect(try ListCursor.decode(text, with: codec, scope: "posts/a/comments") == cursor)
            #expect(throws: HTTPError.self) { try ListCursor.decode(text, with: codec, scope: "posts/b/comments") }
            #expect(throws: HTTPError.self) {
                try ListCursor.decode(text, with: CursorCodec(secret: Array(repeating: 8, count: 32)), scope: "posts/a/comments")
            }
            // Every single-character change is refused.
            var characters = Array(text)
            for index in characters.indices {
                let original = characters[index]
                characters[index] = original == "A" ? "B" : "A"
                #expect(throws: HTTPError.self) { try ListCursor.decode(String(characters), with: codec, scope: "posts/a/comments") }
                characters[index] = original
            }
        }
    }
}
