import HTTP
import Postgres

/// `POST /v1/auth/logout|logout-all`, `PUT /v1/me/password` and `DELETE /v1/me`: each ends
/// sessions at once.
/// A session's access tokens are refused from the ending commit on, because every signed-in
/// transaction requires its session live (`PostgresIdentity.user(_:)`).
extension AuthRoutes {
    /// Ends the session of the refresh token presented, if it is the caller's.
    func logOut(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try authenticator.requireViewer(of: request)
        let body = try JSONBody(request, allowed: ["refreshToken"])
        let presented = try body.string("refreshToken")
        if RefreshTokens.isWellFormed(presented) {
            try await database {
                try await repeatable {
                    _ = try await pool.execute(as: .authService, AuthQueries.revoke(refreshHash: RefreshTokens.hash(presented), userID: viewer.id))
                }
            }
        }
        return .empty(204)
    }

    /// Ends every session of the caller, this one included.
    func logOutEverywhere(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try authenticator.requireViewer(of: request)
        let ended = try await database {
            // Committed with its answer lost: the caller's session was live (it passed the
            // request's check), so the revocation ended it with the rest.
            try await answering({ try await pool.execute(as: .authService, AuthQueries.revokeAll(of: viewer)).affectedRows > 0 }, ifCommitted: { true })
        }
        guard ended else { throw Self.sessionEnded }
        return .empty(204)
    }

    /// Replaces the password (the current one required) and ends every other session.
    func changePassword(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try authenticator.requireViewer(of: request)
        let body = try JSONBody(request, allowed: ["currentPassword", "newPassword"])
        let current = try body.string("currentPassword")
        let replacement = try Validation.password(try body.string("newPassword"), field: "newPassword")

        return try await withPassword(current, of: viewer, wrong: "the current password is wrong") {
            let newHash = try await hashed { try hasher.hash(replacement) }
            let changed = try await database {
                try await answering({ try await pool.execute(as: .authService, AuthQueries.changePassword(of: viewer, to: newHash)) }, ifCommitted: {
                    // Committed, with the caller's session live or not: read which.
                    try await pool.execute(as: .authService, AuthQueries.passwordHash(of: viewer)) == newHash
                })
            }
            guard changed else { throw Self.sessionEnded }
            return .empty(204)
        }
    }

    /// Deletes the caller's account, its password required: the user and every row of theirs
    /// go, and every counter they touched stays exact (0026). Counts against the same hourly
    /// budget as password changes: both try a password.
    func deleteAccount(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try authenticator.requireViewer(of: request)
        let body = try JSONBody(request, allowed: ["password"])
        let password = try body.string("password")

        return try await withPassword(password, of: viewer, wrong: "the password is wrong") {
            let deleted = try await database {
                try await answering({ try await pool.execute(as: .authService, AuthQueries.deleteAccount(of: viewer)) }, ifCommitted: {
                    // Committed, with the caller's session live or not: the account tells which.
                    try await !pool.execute(as: .authService, AuthQueries.accountExists(viewer.id))
                })
            }
            guard deleted else { throw Self.sessionEnded }
            return .empty(204)
        }
    }

    /// Runs `body` once `password` is the viewer's, counting the attempt against the viewer's
    /// hourly budget (each one is a guess at the password): 403 `wrong_password` when it is
    /// not, 429 past the budget, 401 when the session ended meanwhile. The budget's fields go
    /// on the answer.
    private func withPassword(
        _ password: String, of viewer: Viewer, wrong: String, _ body: () async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let check = RateLimitCheck(limit: limits.passwordChangesPerUser, key: viewer.id.lowercasedString)
        let (budget, storedHash) = try await database {
            try await repeatable { try await pool.execute(as: .authService, check.statement, AuthQueries.passwordHash(of: viewer)) }
        }
        let headers = try [budget].enforce()
        return try await reporting(headers) {
            guard let storedHash else { throw Self.sessionEnded }
            guard password.unicodeScalars.count <= Validation.passwordLength.upperBound,
                  try await hashed({ try hasher.verify(password, against: storedHash) })
            else {
                throw HTTPError.forbidden(code: "wrong_password", detail: wrong)
            }
            return try await body()
        }
    }

    /// What a request whose session ended meanwhile is told (as `app.require_session` tells it).
    static var sessionEnded: HTTPError {
        .unauthorized(detail: "the session has ended; sign in again", challenge: #"Bearer error="invalid_token""#)
    }
}
