import HTTP

/// `limit` / `per`: default 20, above 50 clamped to 50, anything but a positive integer a 400.
enum PageSize {
    static let defaultSize = 20
    static let maximum = 50

    static func parse(_ request: HTTPRequest, name: String = "limit") throws -> Int {
        guard let text = request.query[name] else { return defaultSize }
        return min(try positiveInteger(text, name: name), maximum)
    }

    static func positiveInteger(_ text: String, name: String) throws -> Int {
        guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ (48...57).contains($0) }),
              let value = Int(text), value > 0
        else {
            throw HTTPError.badRequest(code: "invalid_parameter", detail: "\(name) must be a positive integer")
        }
        return value
    }
}

/// `page` and `per` for the offset lists (search), bounded in depth so a page is never a
/// scan of the whole table.
struct OffsetPage {
    static let maxDepth = 10_000
    var page: Int
    var per: Int
    var offset: Int { (page - 1) * per }

    init(_ request: HTTPRequest) throws {
        per = try PageSize.parse(request, name: "per")
        page = try request.query["page"].map { try PageSize.positiveInteger($0, name: "page") } ?? 1
        guard page * per <= Self.maxDepth else {
            throw HTTPError.badRequest(
                code: "invalid_parameter", detail: "page × per must be at most \(Self.maxDepth); narrow the search")
        }
    }
}
