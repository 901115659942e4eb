import Postgres

/// The SQL of explore: ranked snapshots (see `sql/migrations/0006_explore.sql`) and pages of
/// them. A page is two statements: whether its snapshot exists (made if needed, for a first
/// page), then the ranks after the cursor's.
package enum ExploreQueries {
    /// How old a snapshot a new first page may use. `ExploreRefresher` ranks one every 20
    /// seconds, so a request only ranks one itself when none is that young.
    static let maxAgeSeconds = 30
    /// How many posts a snapshot ranks; explore ends after them.
    static let snapshotSize = 1_000

    package typealias Page = (snapshotExists: PostgresRead<Bool>, posts: PostgresRead<[RankedPost]>)

    /// The current snapshot (made if needed), then its first ranks; without the posts of
    /// users a signed-in viewer muted (a muted post leaves a gap in the ranks, never a short page).
    package static func firstPage(limit: Int, signedIn: Bool) -> Page {
        (
            returnsRows("select app.explore_snapshot(\(maxAgeSeconds), \(snapshotSize))"),
            ranks("""
                select r.snapshot_id, r.rank, \(unescaped: Post.columns)
                from explore_ranks r join posts p on p.id = r.post_id join users a on a.id = p.author_id
                where r.snapshot_id = (select app.explore_snapshot(\(maxAgeSeconds), \(snapshotSize)))\(unescaped: MuteFilter.and(author: "p.author_id", signedIn: signedIn))
                order by r.rank
                limit \(limit)
                """)
        )
    }

    /// Whether the cursor's snapshot still exists, then the ranks after the cursor's.
    static func laterPage(after cursor: ExploreCursor, limit: Int, signedIn: Bool) -> Page {
        (
            returnsRows("select id from explore_snapshots where id = \(cursor.snapshot)"),
            ranks("""
                select r.snapshot_id, r.rank, \(unescaped: Post.columns)
                from explore_ranks r join posts p on p.id = r.post_id join users a on a.id = p.author_id
                where r.snapshot_id = \(cursor.snapshot) and r.rank > \(Int(cursor.rank))\(unescaped: MuteFilter.and(author: "p.author_id", signedIn: signedIn))
                order by r.rank
                limit \(limit)
                """)
        )
    }

    /// Ranks a snapshot unless one was made within the last `fresherThan` seconds.
    static func refresh(unlessFresherThan fresherThan: Int) -> PostgresQuery {
        "select app.explore_snapshot(\(fresherThan), \(snapshotSize))"
    }

    private static func returnsRows(_ query: PostgresQuery) -> PostgresRead<Bool> {
        PostgresRead(query) { !$0.isEmpty }
    }

    private static func ranks(_ query: PostgresQuery) -> PostgresRead<[RankedPost]> {
        query.rows(RankedPost.init(row:))
    }
}
