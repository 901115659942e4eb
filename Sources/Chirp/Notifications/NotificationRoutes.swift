import HTTP
import Postgres

/// `GET /v1/notifications`, `GET /v1/notifications/unread-count`, `POST /v1/notifications/read`:
/// the signed-in user's own notifications, which the triggers of their causes write.
struct NotificationRoutes: Sendable {
    let services: Services

    /// Cursors are bound to the recipient: one from another user's list is a 400.
    private static func scope(of viewer: Viewer) -> String {
        "notifications:\(viewer.id.lowercasedString)"
    }

    /// Newest first. The first page's `headCursor` names its newest entry, which
    /// `POST /v1/notifications/read` takes to mark what the client has shown.
    func list(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let keyset = try KeysetRequest(request, scope: Self.scope(of: viewer), cursors: services.cursors)
        let entries = try await database {
            try await services.read(
                as: .user(viewer), for: viewer, NotificationQueries.page(of: viewer.id, below: keyset.after ?? .top, limit: keyset.fetchLimit))
        }
        var page = keyset.page(entries, cursors: services.cursors)
        page.headCursor = keyset.after == nil
            ? .some(entries.first.map { ListCursor(position: $0.position).encode(with: services.cursors, scope: keyset.scope) })
            : .some(nil)
        return .json(200, page)
    }

    func unreadCount(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let count = try await database {
            try await services.read(as: .user(viewer), for: viewer, NotificationQueries.unreadCount(of: viewer.id))
        }
        return .json(200, UnreadCount(count: count))
    }

    /// `{upTo: cursor}` marks the entry at that cursor (a `headCursor` or a `nextCursor` of the
    /// viewer's list) and every older one read; no body, or no `upTo`, marks everything so far.
    /// Idempotent, and the mark never moves down: 204 either way.
    func markRead(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let upTo = try Self.upTo(in: request, scope: Self.scope(of: viewer), cursors: services.cursors)
        let write = upTo.map { NotificationQueries.markRead(by: viewer.id, upTo: $0) } ?? NotificationQueries.markAllRead(by: viewer.id)
        try await database {
            do {
                _ = try await repeatable { try await services.pool.execute(as: services.writer(viewer), write.affectedRows) }
            } catch let error as PostgresError where error.violates("notification_reads_user_id_fkey") {
                throw HTTPError.accountGone
            }
        }
        return .empty(204)
    }

    /// The position `upTo` names, nil for everything; an empty body (whatever its declared
    /// type) is everything too.
    private static func upTo(in request: HTTPRequest, scope: String, cursors: CursorCodec) throws -> KeysetPosition? {
        if request.body.isEmpty { return nil }
        let body = try JSONBody(request, allowed: ["upTo"])
        return try body.optionalString("upTo").map { try KeysetRequest.position(of: $0, scope: scope, cursors: cursors) }
    }
}
