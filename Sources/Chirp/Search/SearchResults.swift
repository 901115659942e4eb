/// One page of an offset list: `{items, metadata: {page, per, total}}`, and
/// `metadata.totalIsEstimate: true` when `total` is the database's estimate rather than a
/// count (an exact total looks as it always has).
struct SearchResults<Item: JSONWritable>: JSONWritable {
    var items: [Item]
    var page: OffsetPage
    var total: SearchTotal

    init(items: [Item], page: OffsetPage, total: SearchTotal) {
        self.items = items
        self.page = page
        self.total = total.seen(on: page, items: items.count)
    }

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("items"); json.array(items)
        json.key("metadata")
        json.beginObject()
        json.key("page"); json.int(page.page)
        json.key("per"); json.int(page.per)
        json.key("total"); json.int(total.count)
        if total.isEstimate { json.key("totalIsEstimate"); json.bool(true) }
        json.endObject()
        json.endObject()
    }
}
