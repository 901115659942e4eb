import Postgres

/// The SQL of idempotency keys, scoped to one caller (`owner`). A key is replayed until it
/// expires (`app.expired_before`, 24 hours); after that it may be claimed again.
enum IdempotencyQueries {
    /// Claims the key for a new create, or reclaims an expired one in place. True when claimed;
    /// false when a live claim exists (a retry), or while another transaction's claim is
    /// uncommitted, after waiting for it.
    static func claim(owner: String, key: String, fingerprint: PostgresBytes) -> PostgresRead<Bool> {
        PostgresRead("""
            insert into idempotency_keys as k (owner_key, idempotency_key, request_hash)
            values (\(owner), \(key), \(fingerprint))
            on conflict (owner_key, idempotency_key) do update
                set request_hash = excluded.request_hash, status_code = null, response_body = null, location = null,
                    created_at = now()
                where k.created_at < app.expired_before('idempotency_keys')
            returning 1
            """) { !$0.isEmpty }
    }

    /// Keeps the create's response for its replays: status, body and `Location`.
    static func record(owner: String, key: String, status: Int, body: [UInt8], location: String?) -> PostgresQuery {
        """
        update idempotency_keys set status_code = \(status), response_body = \(PostgresBytes(body)), location = \(location)
        where owner_key = \(owner) and idempotency_key = \(key)
        """
    }

    /// Whether a create with this key completed within the replay window.
    static func isCompleted(owner: String, key: String) -> PostgresRead<Bool> {
        PostgresRead("""
            select from idempotency_keys
            where owner_key = \(owner) and idempotency_key = \(key)
              and status_code is not null and created_at >= app.expired_before('idempotency_keys')
            """) { !$0.isEmpty }
    }

    static func stored(owner: String, key: String) -> PostgresRead<StoredResponse?> {
        PostgresQuery("""
            select request_hash, status_code, response_body, location from idempotency_keys
            where owner_key = \(owner) and idempotency_key = \(key)
            """).firstRow(StoredResponse.init(row:))
    }

    /// What a key holds: the fingerprint of the request that claimed it, and its response once
    /// that request completed.
    struct StoredResponse {
        var fingerprint: PostgresBytes
        var status: Int?
        var body: PostgresBytes?
        var location: String?

        init(row: PostgresRow) throws {
            (fingerprint, status, body, location) = try row.decode((PostgresBytes, Int?, PostgresBytes?, String?).self)
        }
    }
}
