/// A parsed JSON value: a request body, or a part of an access token.
enum JSONValue: Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue {
    /// The deepest nesting of arrays and objects that is parsed. Every body and token part Chirp
    /// reads is a flat object, while a parser recurses once per level: a few hundred levels,
    /// under a kilobyte of `[`, would overflow a thread's stack and end the process.
    static let maxDepth = 32

    /// Parses `bytes`, or nil when they are not JSON, nest deeper than `maxDepth` or repeat a
    /// member name in an object.
    static func parse(_ bytes: [UInt8]) -> JSONValue? {
        var repeatedName: String?
        return JSONParser.parse(bytes, maxDepth: maxDepth, repeatedName: &repeatedName)
    }

    /// Parses `bytes`, or says why it cannot: `repeatedName` is the member name an object
    /// repeated, when that is the reason.
    static func parse(_ bytes: [UInt8], repeatedName: inout String?) -> JSONValue? {
        JSONParser.parse(bytes, maxDepth: maxDepth, repeatedName: &repeatedName)
    }

    /// How deep `[` and `{` nest outside strings, counted without recursion; it stops counting
    /// once past `maxDepth`. A stray closing bracket never lowers the count below zero, so
    /// malformed input cannot hide its depth.
    static func nestingDepth(of bytes: [UInt8]) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
                if deepest > maxDepth { return deepest }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth = max(0, depth - 1)
            default:
                continue
            }
        }
        return deepest
    }
}
