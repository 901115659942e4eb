@testable import Chirp
import Foundation
import Postgres
import TestSupport
import Testing

/// The periodic clean-up of expired tokens, idempotency keys and rate-limit windows. Its one
/// sign-up goes through the router: HTTP is not the point.
@Suite struct HousekeepingTests {
    @Test func expiredTokensOldKeysAndOldRateLimitWindowsAreRemovedAndLiveOnesKept() async throws {
        let app = try await TestService.started(over: .router)
        let user = try await app.signUp("tidy")
        try await app.database.execute(
            PostgresQuery("""
                insert into refresh_tokens (user_id, family_id, token_hash, expires_at)
                values (\(user.id)::uuid, gen_random_uuid(), '\\x01'::bytea, now() - interval '1 day')
                """),
            PostgresQuery("""
                insert into idempotency_keys (owner_key, idempotency_key, request_hash, created_at)
                values (\(user.id), 'old', '\\x02'::bytea, now() - interval '2 days'), (\(user.id), 'new', '\\x03'::bytea, now())
                """),
            PostgresQuery("""
                insert into rate_limit_hits (bucket, window_start, hits)
                values ('login-ip:old', now() - interval '3 days', 1), ('login-ip:new', now(), 1)
                """))
        let removed = try await app.service.housekeeping.runOnce()
        #expect(removed == 3)
        #expect(try await app.database.scalar("select count(*) from refresh_tokens where expires_at < now()", as: Int.self) == 0)
        #expect(try await app.database.scalar("select count(*) from refresh_tokens", as: Int.self) == 1)  // the sign-up's
        #expect(try await app.database.scalar("select string_agg(idempotency_key, ',') from idempotency_keys", as: String.self) == "new")
        #expect(try await app.database.scalar("select string_agg(bucket, ',') from rate_limit_hits where bucket like 'login-ip:%'", as: String.self) == "login-ip:new")
    }
}
