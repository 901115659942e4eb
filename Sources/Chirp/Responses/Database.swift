import HTTP
import Postgres

/// Runs database work and turns its errors into problem responses.
func database<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as PostgresError {
        throw HTTPError.database(error) ?? error
    }
}

/// Runs a write; should its connection break after the server committed it
/// (`committedUnanswered`), answers with `committed` instead: what the caller knows of a write
/// that took effect. For a write that may simply run again (an attempt counted twice, a like
/// that is already there), `committed` is the write itself.
func answering<T>(_ write: () async throws -> T, ifCommitted committed: () async throws -> T) async throws -> T {
    do {
        return try await write()
    } catch let error as PostgresError where error.kind == .committedUnanswered {
        return try await committed()
    }
}

/// `answering` for a write that may simply run again.
func repeatable<T>(_ write: () async throws -> T) async throws -> T {
    try await answering(write, ifCommitted: write)
}
