import HTTP
import Postgres

extension PostgresError {
    /// The server refused a row because of the named constraint (or a trigger raising in
    /// its name). Constraint names are the schema's, so matching them is exact.
    func violates(_ constraint: String) -> Bool {
        kind == .server && sqlState?.class == .integrityConstraintViolation && self.constraint == constraint
    }
}

extension HTTPError {
    /// A valid token whose account no longer exists (a foreign key to `users` refused the
    /// viewer's own id).
    static let accountGone = HTTPError.unauthorized(detail: "the account no longer exists", challenge: #"Bearer error="invalid_token""#)
}
