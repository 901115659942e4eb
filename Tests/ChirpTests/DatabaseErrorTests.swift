@testable import Chirp
import HTTP
import Postgres
import Testing

/// What a client is told when a write's connection breaks: a write that certainly did not
/// commit is the plain 503 the client may retry; one whose outcome is not known (or known only
/// to the server) gets a code of its own that tells it to retry with the same Idempotency-Key.
@Suite struct DatabaseErrorTests {
    @Test func aWriteWhoseOutcomeIsNotKnownSaysSo() throws {
        for kind in [PostgresError.Kind.outcomeUnknown, .committedUnanswered] {
            let error = try #require(HTTPError.database(PostgresError(kind, message: "lost")))
            #expect(error.status == 503)
            #expect(error.code == "outcome_unknown")
            #expect(error.headers["Retry-After"] != nil)
            #expect(error.detail.contains("Idempotency-Key"))
        }
        let aborted = try #require(HTTPError.database(PostgresError(.lostBeforeCommit, message: "lost")))
        #expect(aborted.status == 503 && aborted.code == "unavailable")
    }
}
