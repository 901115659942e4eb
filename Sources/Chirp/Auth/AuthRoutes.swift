import EventLoops
import Foundation
import HTTP
import Postgres

/// `POST /v1/auth/signup|login|refresh`; ending sessions is in `AuthRoutes+EndingSessions`.
///
/// Password hashing never happens while a database connection is held: each endpoint
/// reads or checks what it needs in one transaction, hashes with no connection leased,
/// then writes in another.
struct AuthRoutes: Sendable {
    let pool: PostgresPool
    let hasher: PasswordHasher
    let tokens: AccessTokens
    let authenticator: Authenticator
    let idempotency: Idempotency
    let limits: RateLimits
    /// Verified against when the username is unknown, so both failures take as long.
    let decoyHash: String

    func signUp(_ request: HTTPRequest) async throws -> HTTPResponse {
        let body = try JSONBody(request, allowed: ["username", "password", "displayName"])
        let username = try Validation.username(try body.string("username"))
        let password = try Validation.password(try body.string("password"))
        let displayName = try Validation.trimmedText(
            try body.optionalString("displayName") ?? username, field: "displayName", maxLength: 50)
        try Validation.withoutInvisibleFormatting(displayName, field: "displayName")

        let check = RateLimitCheck(limit: limits.signupPerAddress, key: request.remoteAddress)
        let headers = try await database {
            try await [repeatable { try await pool.execute(as: .authService, check.statement) }]
        }.enforce()

        return try await reporting(headers) {
            // Anonymous callers' keys are scoped by their address.
            let owner = "anon:\(request.remoteAddress)"
            var created: PostgresUUID?
            let memory = replaySession(created: { created })
            if let earlier = try await idempotency.earlierResponse(request, owner: owner, as: .authService, memory: memory) {
                return earlier  // a retry: no second password hash
            }
            let passwordHash = try await hashed { try hasher.hash(password) }
            let refreshToken = RefreshTokens.generate()
            let session = PostgresUUID(UUID())
            let userID = PostgresUUID(UUID())
            let readBack = {
                guard let user = try await pool.execute(as: .authService, ProfileQueries.profile(of: userID)) else {
                    throw PostgresError(.outcomeUnknown, message: "sign-up \(userID) committed but cannot be read back")
                }
                return HTTPResponse.session(201, Session(
                    user: user, accessToken: tokens.issue(for: Viewer(id: userID, session: session)),
                    refreshToken: refreshToken, expiresIn: tokens.lifetime)).located(at: ProfileRoutes.location(of: username))
            }
            return try await idempotency.create(request, owner: owner, as: .authService, memory: memory, readBack: readBack) { transaction in
                do {
                    let user = try await transaction.execute(AuthQueries.signUp(
                        userID, username: username, displayName: displayName, passwordHash: passwordHash,
                        session: session, refreshHash: RefreshTokens.hash(refreshToken)))
                    created = user.id
                    return HTTPResponse.session(201, Session(
                        user: user, accessToken: tokens.issue(for: Viewer(id: user.id, session: session)),
                        refreshToken: refreshToken, expiresIn: tokens.lifetime)).located(at: ProfileRoutes.location(of: username))
                } catch let error as PostgresError where error.sqlState == .uniqueViolation {
                    throw HTTPError.conflict(code: "username_taken", detail: "that username is taken")
                }
            }
        }
    }

    /// A replayed sign-up keeps only the user's id, and answers with a new session for them:
    /// no token is stored, and the retrying client still gets a working pair.
    private func replaySession(created: @escaping () -> PostgresUUID?) -> Idempotency.Memory {
        Idempotency.Memory(
            record: { _ in Array((created()?.lowercasedString ?? "").utf8) },
            replay: { status, stored, transaction in
                guard let user = PostgresUUID(canonical: String(decoding: stored, as: UTF8.self)) else {
                    throw HTTPError.conflict(code: "idempotency_conflict", detail: "the first request with this key did not complete")
                }
                let refreshToken = RefreshTokens.generate()
                let session = Viewer(id: user, session: PostgresUUID(UUID()))
                let (_, profile) = try await transaction.execute(
                    AuthQueries.startSession(session, refreshHash: RefreshTokens.hash(refreshToken)),
                    ProfileQueries.profile(of: user))
                guard let profile else { throw HTTPError.notFound(detail: "the account no longer exists") }
                return .session(status, Session(user: profile, accessToken: tokens.issue(for: session), refreshToken: refreshToken, expiresIn: tokens.lifetime))
            })
    }

    func logIn(_ request: HTTPRequest) async throws -> HTTPResponse {
        let body = try JSONBody(request, allowed: ["username", "password"])
        let name = try body.string("username")
        let password = try body.string("password")
        // A name no account can have is refused before any work: it names nobody, so the quick
        // answer tells nothing about accounts. Checking the format here also keeps a NUL, which
        // the database driver would cut the name at, from aliasing "alice\0x" to "alice".
        guard let username = try? Validation.username(name), password.unicodeScalars.count <= Validation.passwordLength.upperBound else {
            throw invalidCredentials()
        }

        // Every attempt counts against its address. Against the username only failures count
        // (each attempt is counted and a success refunded): per address, refused past the
        // budget, and from anywhere, slowed past it. Nobody else's failures lock a user out.
        let perAddress = RateLimitCheck(limit: limits.loginPerAddress, key: request.remoteAddress)
        let failuresHere = RateLimitCheck(limit: limits.loginFailuresPerUsernameAndAddress, key: "\(username)@\(request.remoteAddress)")
        let failuresAnywhere = RateLimitCheck(limit: limits.loginFailuresPerUsername, key: username)
        let (addressBudget, budgetHere, budgetAnywhere, account) = try await database {
            try await repeatable {
                try await pool.execute(
                    as: .authService, perAddress.statement, failuresHere.statement, failuresAnywhere.statement,
                    AuthQueries.account(username: username))
            }
        }
        let headers = try [addressBudget, budgetHere].enforce()

        return try await reporting(headers) {
            if !budgetAnywhere.allowed {
                // Holds neither a connection nor a hashing slot.
                try await Task.sleep(for: limits.loginSlowdown)
            }
            // Unknown users are checked against a decoy hash: the same work, the same answer.
            let matches = try await hashed { try hasher.verify(password, against: account?.passwordHash ?? decoyHash) }
            guard matches, let account else { throw invalidCredentials() }
            let user = account.profile

            let newHash = hasher.needsRehash(account.passwordHash) ? try? await hashed { try hasher.hash(password) } : nil
            let refreshToken = RefreshTokens.generate()
            let session = Viewer(id: user.id, session: PostgresUUID(UUID()))
            let startSession = AuthQueries.startSession(session, refreshHash: RefreshTokens.hash(refreshToken))
            // Committed with its answer lost: the session is stored, and the answer is known here.
            try await database {
                try await answering({
                    if let newHash {
                        try await pool.execute(
                            as: .authService, startSession, failuresHere.refund, failuresAnywhere.refund,
                            AuthQueries.replacePasswordHash(userID: user.id, passwordHash: newHash))
                    } else {
                        try await pool.execute(as: .authService, startSession, failuresHere.refund, failuresAnywhere.refund)
                    }
                }, ifCommitted: {})
            }
            return .session(200, Session(user: user, accessToken: tokens.issue(for: session), refreshToken: refreshToken, expiresIn: tokens.lifetime))
        }
    }

    func refresh(_ request: HTTPRequest) async throws -> HTTPResponse {
        let body = try JSONBody(request, allowed: ["refreshToken"])
        let presented = try body.string("refreshToken")
        let check = RateLimitCheck(limit: limits.refreshPerAddress, key: request.remoteAddress)
        // The budget is counted and enforced before the rotation runs, in a transaction of its
        // own: a refused request must leave the presented token unused. Pipelined together, the
        // rotation would commit before the count is read, the client would never see the
        // successor, and its retry with the token it holds would look like reuse and end the
        // session.
        let headers = try await database {
            try await [repeatable { try await pool.execute(as: .authService, check.statement) }]
        }.enforce()
        return try await reporting(headers) {
            let successor = RefreshTokens.generate()
            var rotated: (profile: Profile, session: PostgresUUID)?
            if RefreshTokens.isWellFormed(presented) {
                rotated = try await database {
                    try await answering({
                        try await pool.execute(
                            as: .authService,
                            AuthQueries.rotate(presentedHash: RefreshTokens.hash(presented), successorHash: RefreshTokens.hash(successor)))
                    }, ifCommitted: {
                        // Rotated, or not (a dead token commits nothing): the successor says which.
                        try await pool.execute(as: .authService, AuthQueries.holder(of: RefreshTokens.hash(successor)))
                    })
                }
            }
            guard let rotated else {
                throw HTTPError.unauthorized(code: "unauthorized", detail: "the refresh token is invalid, expired or already used")
            }
            let session = Viewer(id: rotated.profile.id, session: rotated.session)
            return .session(200, Session(user: rotated.profile, accessToken: tokens.issue(for: session), refreshToken: successor, expiresIn: tokens.lifetime))
        }
    }

    func invalidCredentials() -> HTTPError {
        .unauthorized(code: "unauthorized", detail: "username or password is wrong")
    }

    /// Runs a password hash on a thread made for blocking (it takes tens of milliseconds);
    /// when every hashing slot is busy, answers 503 at once.
    func hashed<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await BlockingWork.run(body)
        } catch is PasswordHasher.Busy {
            throw HTTPError.unavailable(retryAfter: 1, detail: "too many sign-ins at once; retry shortly")
        }
    }
}
