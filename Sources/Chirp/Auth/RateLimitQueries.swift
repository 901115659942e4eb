import Postgres

/// The SQL of rate limits: one counter row per budget and fixed window.
enum RateLimitQueries {
    /// Counts one attempt in the bucket's current window and returns the window's hits and
    /// the seconds until it ends.
    static func count(bucket: String, windowSeconds: Int) -> PostgresQuery {
        """
        insert into rate_limit_hits as h (bucket, window_start, hits)
        values (\(bucket), to_timestamp(floor(extract(epoch from now()) / \(windowSeconds)) * \(windowSeconds)), 1)
        on conflict (bucket, window_start) do update set hits = h.hits + 1
        returning h.hits, greatest(1, ceil(extract(epoch from h.window_start) + \(windowSeconds) - extract(epoch from now())))::int8
        """
    }
}
