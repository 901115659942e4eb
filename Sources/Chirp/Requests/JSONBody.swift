import Foundation
import HTTP

/// A request's JSON object body, read field by field with client-facing errors: 415 for a
/// body that is not declared JSON, 400 `malformed_json` for one that does not parse or repeats
/// a member name, and
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
        var repeatedName: String?
        guard let value = JSONValue.parse(request.body, repeatedName: &repeatedName) else {
            if let repeatedName {
                throw HTTPError.badRequest(
                    code: "malformed_json", detail: "the body names member \"\(repeatedName.prefix(64))\" more than once")
            }
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
