/// One page of an offset list: `{items, metadata: {page, per, total}}`.
struct SearchResults<Item: JSONWritable>: JSONWritable {
    var items: [Item]
    var page: OffsetPage
    /// Matches counted, at most `SearchQueries.countCap`.
    var total: Int

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("items"); json.array(items)
        json.key("metadata")
        json.beginObject()
        json.key("page"); json.int(page.page)
        json.key("per"); json.int(page.per)
        json.key("total"); json.int(total)
        json.endObject()
        json.endObject()
    }
}
