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
