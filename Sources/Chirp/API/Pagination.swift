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

/// `page` and `per` for the offset lists (search), bounded in depth so a page is never a
/// scan of the whole table.
package struct OffsetPage {
    static let maxDepth = 10_000
    var page: Int
    var per: Int
    var offset: Int { (page - 1) * per }

    package init(_ request: HTTPRequest) throws {
        per = try PageSize.parse(request, name: "per")
        page = try request.query["page"].map { try PageSize.positiveInteger($0, name: "page") } ?? 1
        // Divided rather than multiplied: `page` may be as large as `Int.max`.
        guard page <= Self.maxDepth / per else {
            throw HTTPError.badRequest(
                code: "invalid_parameter", detail: "page × per must be at most \(Self.maxDepth); narrow the search")
        }
    }
}
