import HTTP

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
