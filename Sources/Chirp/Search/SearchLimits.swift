/// What bounds a search: where post search stops sorting its matches and walks instead, a
/// timeout on each of its statements, and a budget per client address, counted in each
/// instance's memory (a search must not write to the database).
public struct SearchLimits: Sendable, Equatable {
    /// The planner's estimate of a post search's matches from which it walks the timeline (or
    /// the likes) in the page's order instead of sorting its matches, and the most matches a
    /// sort reads before it gives way to the walk (see `SearchQueries`); at least 1,001. 5,000
    /// is where, for a first page of a million posts, walking about 1M × 20 / 5,000 posts to the
    /// 20th match costs what reading and sorting 5,000 matches costs; and five times the exact
    /// limit of totals, more than the statistics' error on a word they count.
    public var commonFrom = 5_000
    /// Each search statement's `statement_timeout`: beyond it the search answers 503 and its
    /// connection returns to the pool. Half a second is ten times the slowest first page
    /// measured on the benchmark's data (about 45 ms: a common word whose matches lie behind
    /// 125,000 newer posts without it), over twice the slowest seen without statistics (185 ms),
    /// and what a connection may be held for at worst, per statement.
    public var statementTimeout: Duration = .milliseconds(500)
    /// Searches (posts and users together) per client address and window.
    public var perAddress = RateLimit(name: "search-ip", limit: 60, windowSeconds: 60)
    /// The most addresses one instance counts in a window (about 100 bytes each).
    public var countedAddresses = 16_384

    public init() {}
}
