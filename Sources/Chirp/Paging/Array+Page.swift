extension Array {
    /// Splits a `limit + 1` fetch into the page and whether more exist.
    func page(limit: Int) -> (items: ArraySlice<Element>, hasMore: Bool) {
        (prefix(limit), count > limit)
    }
}
