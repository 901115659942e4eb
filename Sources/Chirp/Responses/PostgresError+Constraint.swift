import HTTP
import Postgres

extension PostgresError {
    /// The server refused a row because of the named constraint (or a trigger raising in
    /// its name). Constraint names are the schema's, so matching them is exact.
    func violates(_ constraint: String) -> Bool {
        kind == .server && sqlState?.class == .integrityConstraintViolation && self.constraint == constraint
    }
}

extension PostgresError {
    /// A row-level security policy refused the row (a policy's check, not a missing grant:
    /// the service holds every grant it uses, `sql/tests/00_structure.sql`).
    var isPolicyRefusal: Bool {
        kind == .server && sqlState == .insufficientPrivilege
    }
}

extension HTTPError {
    /// A write across a block: its insert policy refused it (`0028_blocks_and_mutes.sql`).
    static let blocked = HTTPError.forbidden(code: "blocked", detail: "a block between you and this user refuses it")

    /// A valid token whose account no longer exists (a foreign key to `users` refused the
    /// viewer's own id).
    static let accountGone = HTTPError.unauthorized(detail: "the account no longer exists", challenge: #"Bearer error="invalid_token""#)
}
