import EventLoops

/// One leased connection, for work that needs the same connection from one statement to the
/// next (`PostgresPool.withSession`). Each call is one round trip. Valid only inside the
/// `withSession` body that made it; used after that, it throws instead of reaching a connection
/// that may be leased to someone else by then.
public final class PostgresSession {
    private let connection: PostgresConnection
    private let loop: EventLoop
    private var ended = false

    init(connection: PostgresConnection, loop: EventLoop) {
        self.connection = connection
        self.loop = loop
    }

    /// The server process serving this session.
    public var backendPID: Int32 { connection.backendPID }

    /// Runs statements in one round trip, in one implicit transaction unless they begin one,
    /// and returns their outputs in order.
    @discardableResult
    public func execute<each Statement: PostgresStatement>(
        _ statements: repeat each Statement
    ) async throws -> (repeat (each Statement).Output) {
        try PostgresStatements.read(try await execute(PostgresStatements.queries(repeat each statements)), repeat each statements)
    }

    /// `execute` for one statement (see `PostgresPool.execute(as:readOnly:_:)` for why).
    @discardableResult
    public func execute<Statement: PostgresStatement>(_ statement: Statement) async throws -> Statement.Output {
        try statement.read(PostgresStatements.only(try await execute([statement.query])))
    }

    private func execute(_ queries: [PostgresQuery]) async throws -> [PostgresResult] {
        try checkActive()
        return try await connection.pipeline(queries, on: loop)
    }

    /// Runs a script of several statements with the simple query protocol, without
    /// parameters: only for SQL the program ships (migrations, the seed), never for values.
    public func unsafeExecuteScript(_ sql: String) async throws {
        try checkActive()
        try await connection.unsafeExecuteScript(sql, on: loop)
    }

    /// Ends an open transaction after a failure, so the connection can be pooled again.
    public func rollBackIfNeeded() async {
        guard !ended else { return }
        await connection.rollBackIfNeeded(on: loop)
    }

    func end() {
        ended = true
    }

    private func checkActive() throws {
        guard !ended else { throw PostgresError(.client, message: "a session was used after its lease ended") }
    }
}
