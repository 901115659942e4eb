import Foundation
import HTTP
import Postgres

/// `GET /v1/explore`: posts by like count, paged from a ranked snapshot (see
/// `sql/migrations/0006_explore.sql`). Counts shown are live; the order is the snapshot's,
/// so a client following `nextCursor` sees every ranked post at most once. A cursor whose
/// snapshot has expired (after 15 minutes) is a 400 `invalid_cursor`: start again.
struct ExploreRoutes: Sendable {
    let services: Services

    func explore(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        let limit = try PageSize.parse(request)
        let cursor = try request.query["cursor"].map { try ExploreCursor.decode($0, with: services.cursors) }
        let page = cursor.map { ExploreQueries.laterPage(after: $0, limit: limit + 1, signedIn: viewer != nil) }
            ?? ExploreQueries.firstPage(limit: limit + 1, signedIn: viewer != nil)
        let identity = services.identity(for: viewer)
        let (snapshotExists, ranked) = try await database {
            // The first page may have to rank a fresh snapshot: a write, on the primary.
            guard cursor != nil else { return try await services.pool.execute(as: identity, page.snapshotExists, page.posts) }
            let read = try await services.read(as: identity, for: viewer, page.snapshotExists, page.posts)
            // A snapshot ranked moments ago may not have reached the replica yet.
            if read.0 || services.replicas == nil { return read }
            return try await services.pool.execute(as: identity, readOnly: true, page.snapshotExists, page.posts)
        }
        guard snapshotExists else { throw CursorCodec.invalid }  // the snapshot expired
        let (items, hasMore) = ranked.page(limit: limit)
        let next = hasMore ? items.last?.cursor.encode(with: services.cursors) : nil
        return .json(200, CursorPage(items: ArraySlice(items.map(\.post)), nextCursor: next, hasMore: hasMore))
    }
}
