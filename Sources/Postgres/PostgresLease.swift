import EventLoops

/// One connection, leased for the length of a body (`PostgresPool.withSession`,
/// `withTransaction`): statements run in round trips on it, and return their outputs in order.
/// Valid only inside that body; used after it, every call throws instead of reaching a
/// connection that may be leased to someone else by then.
public class PostgresLease {
    let connection: PostgresConnection
    let loop: EventLoop
    private var ended = false

    init(connection: PostgresConnection, loop: EventLoop) {
        self.connection = connection
        self.loop = loop
    }

    /// Runs statements in one round trip and returns their outputs, in order.
    @discardableResult
    public func execute<each Statement: PostgresStatement>(
        _ statements: repeat each Statement
    ) async throws -> (repeat (each Statement).Output) {
        try PostgresStatements.read(try await pipeline(PostgresStatements.queries(repeat each statements)), repeat each statements)
    }

    /// `execute` for one statement (see `PostgresPool.execute(as:readOnly:_:)` for why).
    @discardableResult
    public func execute<Statement: PostgresStatement>(_ statement: Statement) async throws -> Statement.Output {
        try statement.read(PostgresStatements.only(try await pipeline([statement.query])))
    }

    /// One round trip of `queries`; what a kind of lease adds to it, it adds here.
    func pipeline(_ queries: [PostgresQuery]) async throws -> [PostgresResult] {
        try checkActive()
        return try await connection.pipeline(queries, on: loop)
    }

    func end() {
        ended = true
    }

    var isActive: Bool { !ended }

    func checkActive() throws {
        guard !ended else { throw PostgresError(.client, message: "a database lease was used after its body ended") }
    }
}
