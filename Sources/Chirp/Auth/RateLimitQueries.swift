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

    /// Takes back one attempt counted in the bucket's current window (an attempt that turned
    /// out not to be what the budget counts, such as a login that succeeded).
    static func refund(bucket: String, windowSeconds: Int) -> PostgresQuery {
        """
        update rate_limit_hits set hits = hits - 1
        where bucket = \(bucket) and hits > 0
          and window_start = to_timestamp(floor(extract(epoch from now()) / \(windowSeconds)) * \(windowSeconds))
        """
    }
}
