import Foundation
import HTTP
import Postgres

extension HTTPRequest {
    /// A path parameter that must be a UUID (400 otherwise, before any database work).
    func uuidParameter(_ name: String) throws -> PostgresUUID {
        guard let text = pathParameters[name], let id = PostgresUUID(canonical: text) else {
            throw HTTPError.badRequest(code: "invalid_parameter", detail: "\(name) must be a UUID")
        }
        return id
    }

    /// A username path parameter; one that cannot exist is simply not found.
    func usernameParameter() throws -> String {
        let raw = pathParameters["username"] ?? ""
        guard let username = try? Validation.username(raw) else {
            throw HTTPError.notFound(detail: "no such user")
        }
        return username
    }
}
