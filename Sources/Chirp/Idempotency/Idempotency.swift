import Foundation
import HTTP
import Postgres

/// `Idempotency-Key` on creates: within 24 hours, a retry with the same key from the same
/// caller replays the first response instead of creating twice. The key is claimed in the
/// create's own transaction, so a concurrent retry waits for the first to commit and then
/// replays it; a create that fails rolls its claim back and may simply be retried.
struct Idempotency: Sendable {
    let pool: PostgresPool
    /// Keys the request fingerprints: a body may hold a password, so the stored hash of it
    /// must not be one anybody could recompute from a guess.
    let fingerprintKey: HMACKey

    /// What a create keeps for its replays, and how a replay answers from it. By default the
    /// response body itself; sign-up keeps only the new user's id and answers a replay with a
    /// fresh session, so no token is ever stored.
    struct Memory {
        var record: (HTTPResponse) -> [UInt8]
        var replay: (_ status: Int, _ stored: [UInt8], PostgresTransaction) async throws -> HTTPResponse

        static var responseBody: Memory {
            Memory(record: { $0.body }, replay: { status, stored, _ in .json(status, stored) })
        }
    }

    /// Runs `create` in a transaction as `identity`. `owner` scopes keys to one caller. Should
    /// the connection break as the transaction commits, and the server say it did commit, the
    /// answer comes from what was stored: the key's recorded response, or else `readBack`
    /// (which reads the row under the id the service chose for it); without either, the
    /// client is told the outcome is not known.
    func create(
        _ request: HTTPRequest, owner: String, as identity: PostgresIdentity, memory: Memory = .responseBody,
        readBack: (() async throws -> HTTPResponse)? = nil,
        _ create: (PostgresTransaction) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        guard let key = try Self.key(of: request) else {
            return try await database {
                do {
                    return try await pool.withTransaction(as: identity, create)
                } catch let error as PostgresError where error.kind == .committedUnanswered {
                    guard let readBack else { throw error }
                    return try await readBack()
                }
            }
        }
        let fingerprint = fingerprint(of: request)
        return try await database {
            do {
                return try await claimAndCreate(owner: owner, key: key, fingerprint: fingerprint, as: identity, memory: memory, create)
            } catch let error as PostgresError where error.kind == .committedUnanswered {
                // The key's response was recorded in the transaction that committed.
                var response = try await pool.withTransaction(as: identity) { transaction in
                    try await replay(owner: owner, key: key, fingerprint: fingerprint, memory: memory, in: transaction)
                }
                response.headers.remove("Idempotent-Replayed")
                return response
            }
        }
    }

    private func claimAndCreate(
        owner: String, key: String, fingerprint: PostgresBytes, as identity: PostgresIdentity, memory: Memory,
        _ create: (PostgresTransaction) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        try await pool.withTransaction(as: identity) { transaction in
            let claimed = try await transaction.execute(IdempotencyQueries.claim(owner: owner, key: key, fingerprint: fingerprint))
            if claimed {
                let response = try await create(transaction)
                try await transaction.execute(
                    IdempotencyQueries.record(
                        owner: owner, key: key, status: response.status, body: memory.record(response),
                        location: response.headers["Location"]))
                return response
            }
            return try await replay(owner: owner, key: key, fingerprint: fingerprint, memory: memory, in: transaction)
        }
    }

    /// The replay of an earlier, completed create with this request's key, if there is one:
    /// lets a create with expensive work before its transaction (sign-up's password hash)
    /// skip that work on a retry.
    func earlierResponse(
        _ request: HTTPRequest, owner: String, as identity: PostgresIdentity, memory: Memory = .responseBody
    ) async throws -> HTTPResponse? {
        guard let key = try Self.key(of: request) else { return nil }
        let fingerprint = fingerprint(of: request)
        return try await database {
            try await pool.withTransaction(as: identity) { transaction in
                let completed = try await transaction.execute(IdempotencyQueries.isCompleted(owner: owner, key: key))
                guard completed else { return nil }
                return try await replay(owner: owner, key: key, fingerprint: fingerprint, memory: memory, in: transaction)
            }
        }
    }

    private static func key(of request: HTTPRequest) throws -> String? {
        guard let key = request.headers["Idempotency-Key"] else { return nil }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (33...126).contains($0) }) else {
            throw HTTPError.badRequest(code: "invalid_parameter", detail: "Idempotency-Key must be 1 to 255 visible ASCII characters")
        }
        return key
    }

    private func fingerprint(of request: HTTPRequest) -> PostgresBytes {
        PostgresBytes(fingerprintKey.authenticate(Array("\(request.method.rawValue) \(request.path)\n".utf8), request.body))
    }

    private func replay(
        owner: String, key: String, fingerprint: PostgresBytes, memory: Memory, in transaction: PostgresTransaction
    ) async throws -> HTTPResponse {
        let stored = try await transaction.execute(IdempotencyQueries.stored(owner: owner, key: key))
        guard let stored else {
            throw HTTPError.conflict(code: "idempotency_conflict", detail: "the first request with this key is still running")
        }
        guard stored.fingerprint == fingerprint else {
            throw HTTPError.unprocessable(code: "idempotency_key_reused", detail: "this Idempotency-Key was used for a different request")
        }
        guard let status = stored.status, let body = stored.body else {
            throw HTTPError.conflict(code: "idempotency_conflict", detail: "the first request with this key is still running")
        }
        var response = try await memory.replay(status, body.bytes, transaction)
        if let location = stored.location { response.headers.set("Location", location) }
        response.headers.set("Idempotent-Replayed", "true")
        return response
    }
}
