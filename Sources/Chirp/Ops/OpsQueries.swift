import Postgres

/// The SQL of operations: readiness, and housekeeping's bounded deletes of what has expired.
enum OpsQueries {
    /// What readiness asks the database.
    static let ping: PostgresQuery = "select 1"

    /// Expired refresh tokens and idempotency keys; returns how many went.
    static func purgeExpired(batchSize: Int) -> PostgresRead<Int> {
        PostgresQuery("select app.purge_expired(\(batchSize))").value(Int.self)
    }

    /// Rate-limit windows past their lifetime, as `app.expired_before` defines it for every purge.
    static func purgeRateLimitWindows(batchSize: Int) -> PostgresRead<Int> {
        PostgresQuery("""
            delete from rate_limit_hits where (bucket, window_start) in (
                select bucket, window_start from rate_limit_hits
                where window_start < app.expired_before('rate_limit_hits') order by window_start limit \(batchSize))
            """).affectedRows
    }
}
