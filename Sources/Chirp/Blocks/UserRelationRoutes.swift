import HTTP
import Postgres

/// `PUT`/`DELETE /v1/users/:username/block` and `…/mute`, `GET /v1/me/blocks` and
/// `/v1/me/mutes`. Each write is idempotent and answers the viewer's state after it.
struct UserRelationRoutes: Sendable {
    let services: Services

    func block(_ request: HTTPRequest) async throws -> HTTPResponse { try await set(.block, to: true, request) }
    func unblock(_ request: HTTPRequest) async throws -> HTTPResponse { try await set(.block, to: false, request) }
    func mute(_ request: HTTPRequest) async throws -> HTTPResponse { try await set(.mute, to: true, request) }
    func unmute(_ request: HTTPRequest) async throws -> HTTPResponse { try await set(.mute, to: false, request) }
    func blocks(_ request: HTTPRequest) async throws -> HTTPResponse { try await list(.block, request) }
    func mutes(_ request: HTTPRequest) async throws -> HTTPResponse { try await list(.mute, request) }

    /// The write and whether the user exists, in one transaction: an unknown user is a 404,
    /// naming yourself a 422.
    private func set(_ relation: UserRelation, to isSet: Bool, _ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let username = try request.usernameParameter()
        let write = isSet ? UserRelationQueries.set(relation, toward: username) : UserRelationQueries.clear(relation, toward: username)
        let (_, exists) = try await database {
            do {
                return try await repeatable {
                    try await services.pool.execute(as: services.writer(viewer), write.affectedRows, FollowQueries.userExists(username))
                }
            } catch let error as PostgresError where error.violates(relation.notSelf) {
                throw HTTPError.unprocessable(detail: "you cannot \(relation.verb) yourself")
            } catch let error as PostgresError where error.violates(relation.ownerForeignKey) {
                throw HTTPError.accountGone
            }
        }
        guard exists else { throw HTTPError.notFound(detail: "no such user") }
        return .json(200, UserRelationStatus(username: username, flag: relation.flag, isSet: isSet))
    }

    /// Newest first; cursors are bound to the viewer and the list.
    private func list(_ relation: UserRelation, _ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.requireViewer(of: request)
        let keyset = try KeysetRequest(request, scope: "me/\(relation.list):\(viewer.id.lowercasedString)", cursors: services.cursors)
        let users = try await database {
            try await services.read(
                as: PostgresIdentity.user(viewer).adding(FollowQueries.listSettings), for: viewer,
                UserRelationQueries.list(relation, of: viewer.id, after: keyset.after ?? .top, limit: keyset.fetchLimit))
        }
        return .json(200, keyset.page(users, cursors: services.cursors))
    }
}
