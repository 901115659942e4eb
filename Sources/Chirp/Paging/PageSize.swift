import HTTP

/// `limit` / `per`: default 20, above 50 clamped to 50, anything but a positive integer a 400.
package enum PageSize {
    package static let defaultSize = 20
    static let maximum = 50

    static func parse(_ request: HTTPRequest, name: String = "limit") throws -> Int {
        guard let text = request.query[name] else { return defaultSize }
        return min(try positiveInteger(text, name: name), maximum)
    }

    /// Digits only, not all zeros. A value too large for `Int` is still a positive integer, so
    /// it saturates (and `limit` then clamps) instead of being refused.
    static func positiveInteger(_ text: String, name: String) throws -> Int {
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }), text.utf8.contains(where: { $0 != 48 }) else {
            throw HTTPError.badRequest(code: "invalid_parameter", detail: "\(name) must be a positive integer")
        }
        return Int(text) ?? Int.max
    }
}
