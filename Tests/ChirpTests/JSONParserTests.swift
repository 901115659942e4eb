@testable import Chirp
import Testing

/// The request-body and token parser: what RFC 8259 allows comes back as the same value,
/// and everything else, including what lenient parsers let through, is refused.
@Suite struct JSONParserTests {
    func parse(_ text: String) -> JSONValue? {
        JSONValue.parse(Array(text.utf8))
    }

    @Test func valuesOfEveryKindParse() {
        #expect(parse(#" {"a": [1, -2.5e3, true, false, null], "b": {"c": "d"}} "#) == .object([
            "a": .array([.number(1), .number(-2500), .bool(true), .bool(false), .null]),
            "b": .object(["c": .string("d")]),
        ]))
        #expect(parse("[]") == .array([]))
        #expect(parse("{}") == .object([:]))
        #expect(parse("0") == .number(0))
        #expect(parse("-0.125") == .number(-0.125))
        #expect(parse(#""plain""#) == .string("plain"))
    }

    @Test func escapesDecodeToTheirCharacters() {
        #expect(parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{8}\u{c}\n\r\t"))
        #expect(parse(#""caf\u00e9 \u00E9""#) == .string("café é"))
        #expect(parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(parse(#""nul\u0000byte""#) == .string("nul\u{0}byte"))
        #expect(parse("\"raw UTF-8: ü 😀\"") == .string("raw UTF-8: ü 😀"))
    }

    @Test(arguments: [
        "", " ", "{", "}", "[1,]", "[,1]", #"{"a":1,}"#, #"{"a" 1}"#, #"{a:1}"#, "{'a':1}",
        "01", "1.", ".5", "+1", "1e", "1e+", "-", "0x10", "NaN", "Infinity", "1e400",
        "tru", "nulls", "[1] [2]", "{} x", #""open"#, #""bad \x escape""#, #""\u12""#,
        #""\ud83d""#, #""\ude00""#, #""\ud83d\u0041""#, "\"tab\there\"", "\"new\nline\"",
    ])
    func malformedTextIsRefused(_ text: String) {
        #expect(parse(text) == nil)
    }

    /// I-JSON (RFC 7493 §2.3): a member name appears once per object, however it is spelled.
    @Test(arguments: [
        (#"{"k": 1, "k": 2}"#, "k"),
        (#"{"password": "wrong", "password": "right"}"#, "password"),
        (#"{"a": 1, "\u0061": 2}"#, "a"),
        (#"{"outer": {"x": 1, "y": {"x": 2}, "x": 3}}"#, "x"),
    ])
    func aRepeatedMemberNameIsRefusedAndNamed(_ text: String, _ name: String) {
        var repeatedName: String?
        #expect(JSONValue.parse(Array(text.utf8), repeatedName: &repeatedName) == nil)
        #expect(repeatedName == name)
        #expect(parse(#"{"x": {"x": 1}, "y": [{"x": 2}, {"x": 3}]}"#) != nil)
    }

    @Test func invalidUTF8IsRefused() {
        #expect(JSONValue.parse([0x22, 0xff, 0x22]) == nil)
        #expect(JSONValue.parse([0x22, 0xc3, 0x22]) == nil)  // a truncated two-byte sequence
        #expect(JSONValue.parse([0x22, 0x5c, 0x6e, 0xed, 0xa0, 0x80, 0x22]) == nil)  // an encoded surrogate
    }

    @Test func nestingIsCappedWithoutRecursingFurther() {
        let allowed = String(repeating: "[", count: JSONValue.maxDepth) + String(repeating: "]", count: JSONValue.maxDepth)
        #expect(parse(allowed) != nil)
        let deeper = String(repeating: "[", count: JSONValue.maxDepth + 1) + String(repeating: "]", count: JSONValue.maxDepth + 1)
        #expect(parse(deeper) == nil)
        #expect(parse(String(repeating: "[", count: 100_000)) == nil)
        #expect(parse(String(repeating: #"{"a":"#, count: 100_000)) == nil)
    }
}
