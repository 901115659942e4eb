import Foundation
import HTTP
import Postgres

/// Turns a request's `Authorization` header into the signed-in user and session, or refuses it
/// with a 401 before any database work (a session that has ended is refused by the database, in
/// the request's first transaction).
struct Authenticator: Sendable {
    let tokens: AccessTokens

    /// The user, or nil for a request without credentials. A request that sends credentials
    /// that do not verify is refused, even on a public route, so a client learns at once
    /// that its token is bad.
    func viewer(of request: HTTPRequest) throws -> Viewer? {
        guard let header = request.headers["Authorization"] else { return nil }
        // "Bearer " in any case, compared as bytes.
        let scheme = "bearer ".utf8
        guard header.utf8.count > 7,
              header.utf8.prefix(7).elementsEqual(scheme, by: { $0 == $1 || ($1 >= 0x61 && $0 | 0x20 == $1) })
        else {
            throw HTTPError.unauthorized(detail: "use an Authorization: Bearer token", challenge: #"Bearer error="invalid_request""#)
        }
        let token = header.dropFirst(7).trimmingASCIISpaces()
        do {
            return try tokens.verify(token)
        } catch .expired {
            throw HTTPError.unauthorized(
                code: "token_expired", detail: "the access token has expired; refresh it",
                challenge: #"Bearer error="invalid_token", error_description="expired""#)
        } catch {
            throw HTTPError.unauthorized(detail: "the access token is invalid", challenge: #"Bearer error="invalid_token""#)
        }
    }

    /// The user, or 401 when the request is anonymous.
    func requireViewer(of request: HTTPRequest) throws -> Viewer {
        guard let viewer = try viewer(of: request) else { throw HTTPError.unauthorized() }
        return viewer
    }
}
