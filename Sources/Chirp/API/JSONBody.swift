import Foundation
import HTTP

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
    /// under a kilobyte of `[`, once overflowed a connection thread's stack and ended the process.
    static let maxDepth = 32

    /// Parses `bytes`, or nil when they are not JSON or nest deeper than `maxDepth`.
    static func parse(_ bytes: [UInt8]) -> JSONValue? {
        JSONParser.parse(bytes, maxDepth: maxDepth)
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

/// A request's JSON object body, read field by field with client-facing errors: 415 for a
/// body that is not declared JSON, 400 `malformed_json` for one that does not parse, and
/// 422 `validation_failed` for a missing, mistyped or unexpected field. Unexpected fields are
/// refused rather than ignored, so a client can never believe it set a server-owned field.
struct JSONBody {
    private let fields: [String: JSONValue]

    init(_ request: HTTPRequest, allowed: Set<String>) throws {
        let contentType = request.headers["Content-Type"]?.lowercased() ?? ""
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingASCIISpaces() }
        guard mediaType == "application/json" else {
            throw HTTPError.unsupportedMediaType(detail: "send the body as application/json")
        }
        guard JSONValue.nestingDepth(of: request.body) <= JSONValue.maxDepth else {
            throw HTTPError.badRequest(code: "malformed_json", detail: "the body nests deeper than \(JSONValue.maxDepth) levels")
        }
        guard let value = JSONValue.parse(request.body) else {
            throw HTTPError.badRequest(code: "malformed_json", detail: "the body is not valid JSON")
        }
        guard case .object(let fields) = value else {
            throw HTTPError.badRequest(code: "malformed_json", detail: "the body must be a JSON object")
        }
        if let unexpected = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw HTTPError.unprocessable(detail: "unexpected field \"\(unexpected)\"")
        }
        self.fields = fields
    }

    func string(_ name: String) throws -> String {
        guard let value = try optionalString(name) else {
            throw HTTPError.unprocessable(detail: "\(name) is required")
        }
        return value
    }

    /// A string, or nil when absent or null.
    func optionalString(_ name: String) throws -> String? {
        switch fields[name] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw HTTPError.unprocessable(detail: "\(name) must be a string")
        }
    }

    func has(_ name: String) -> Bool { fields[name] != nil }
}
