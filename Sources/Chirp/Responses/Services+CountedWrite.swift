import HTTP
import Postgres

extension Services {
    /// A write and the counter it moves, pipelined in one transaction as the viewer (see
    /// `LikeQueries`), and the count after the write. No count means that what it counts does
    /// not exist: a 404 saying `missing`. `refusal` says what a client is told when the schema
    /// refuses the write.
    func count(
        after write: PostgresQuery, _ count: PostgresRead<Int?>, by viewer: Viewer, missing: String,
        refusal: @escaping (PostgresError) -> HTTPError? = { _ in nil }
    ) async throws -> Int {
        let (_, counted) = try await database {
            do {
                // Idempotent: should its answer be lost as it commits, run again it changes
                // nothing and counts what the first run left.
                return try await repeatable { try await pool.execute(as: writer(viewer), write, count) }
            } catch let error as PostgresError {
                throw refusal(error) ?? error
            }
        }
        guard let counted else { throw HTTPError.notFound(detail: missing) }
        return counted
    }
}
