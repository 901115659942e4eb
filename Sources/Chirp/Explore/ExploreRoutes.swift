import Foundation
import HTTP
import Postgres

/// `GET /v1/explore`: posts by like count, paged from a ranked snapshot (see
/// `sql/migrations/0006_explore.sql`). Counts shown are live; the order is the snapshot's,
/// so a client following `nextCursor` sees every ranked post at most once. A cursor whose
/// snapshot has expired (after 15 minutes) is a 400 `invalid_cursor`: start again.
struct ExploreRoutes: Sendable {
    let services: Services
    /// How old a snapshot a new first page may use. `ExploreRefresher` ranks one every 20
    /// seconds, so a request only ranks one itself when none is that young.
    static let maxAgeSeconds = 30
    /// How many posts a snapshot ranks; explore ends after them.
    static let snapshotSize = 1_000

    func register(on router: Router) {
        router.add(.GET, "/v1/explore", explore)
    }

    func explore(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        let limit = try PageSize.parse(request)
        let cursor = try request.query["cursor"].map { try ExploreCursor.decode($0, with: services.cursors) }
        let statements = cursor.map { Self.laterPage(after: $0, limit: limit + 1) } ?? Self.firstPage(limit: limit + 1)
        let results = try await database {
            // Not read-only: the first page may have to rank a fresh snapshot.
            try await services.pool.execute(as: services.identity(for: viewer), statements)
        }
        guard !results[0].isEmpty else { throw CursorCodec.invalid }  // the snapshot expired
        var ranked: [(post: Post, cursor: ExploreCursor)] = []
        for row in results[1].rows {
            let (snapshot, rank) = try row.decode((Int64, Int32).self)
            ranked.append((try Post(row: row, startingAt: 2), ExploreCursor(snapshot: snapshot, rank: rank)))
        }
        let (items, hasMore) = ranked.page(limit: limit)
        let next = hasMore ? items.last?.cursor.encode(with: services.cursors) : nil
        return respond(200, CursorPage(items: ArraySlice(items.map(\.post)), nextCursor: next, hasMore: hasMore))
    }

    /// The current snapshot (made if needed), then its first ranks.
    static func firstPage(limit: Int) -> [PostgresQuery] {
        [
            "select app.explore_snapshot(\(maxAgeSeconds), \(snapshotSize))",
            """
            select r.snapshot_id, r.rank, \(unescaped: Post.columns)
            from explore_ranks r join posts p on p.id = r.post_id join users a on a.id = p.author_id
            where r.snapshot_id = (select app.explore_snapshot(\(maxAgeSeconds), \(snapshotSize)))
            order by r.rank
            limit \(limit)
            """,
        ]
    }

    /// Whether the cursor's snapshot still exists, then the ranks after the cursor's.
    static func laterPage(after cursor: ExploreCursor, limit: Int) -> [PostgresQuery] {
        [
            "select id from explore_snapshots where id = \(cursor.snapshot)",
            """
            select r.snapshot_id, r.rank, \(unescaped: Post.columns)
            from explore_ranks r join posts p on p.id = r.post_id join users a on a.id = p.author_id
            where r.snapshot_id = \(cursor.snapshot) and r.rank > \(Int(cursor.rank))
            order by r.rank
            limit \(limit)
            """,
        ]
    }
}
