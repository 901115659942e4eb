import Postgres

/// How many results a search has: exact, or the database's estimate (see `SearchQueries`).
package struct SearchTotal: Equatable {
    var count: Int
    var isEstimate: Bool

    /// `(count, is_estimate)`, as the total statements return it.
    init(row: PostgresRow) throws {
        (count, isEstimate) = try row.decode((Int, Bool).self)
    }

    init(count: Int, isEstimate: Bool) {
        self.count = count
        self.isEstimate = isEstimate
    }

    /// The total once `items` results of `page` are in hand. A page that came back short ends
    /// the results, so where they end is known exactly, and an estimate gives way to it (the
    /// statistics overestimate some queries, such as a phrase of common words that seldom meet).
    /// A full page shows at least its own depth. An exact count stays as it is.
    func seen(on page: OffsetPage, items: Int) -> SearchTotal {
        guard isEstimate else { return self }
        if items < page.per, items > 0 || page.offset == 0 {
            return SearchTotal(count: page.offset + items, isEstimate: false)
        }
        return SearchTotal(count: max(count, page.offset + items), isEstimate: true)
    }
}
