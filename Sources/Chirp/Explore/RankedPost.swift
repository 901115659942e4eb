import Postgres

/// A post in an explore snapshot, and the cursor that continues after it.
package struct RankedPost {
    var post: Post
    var cursor: ExploreCursor

    /// Reads the snapshot id and rank, then `Post.columns`.
    init(row: PostgresRow) throws {
        let (snapshot, rank) = try row.decode((Int64, Int32).self)
        post = try Post(row: row, startingAt: 2)
        cursor = ExploreCursor(snapshot: snapshot, rank: rank)
    }
}
