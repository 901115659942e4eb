import EventLoops

/// A transaction in progress on a leased connection (`PostgresPool.withTransaction`). Valid
/// only inside the body that received it; used after that, it throws.
public final class PostgresTransaction {
    private let connection: PostgresConnection
    private let loop: EventLoop
    /// `BEGIN` and the identity: sent with the first statements.
    private var preamble: [PostgresQuery]
    private var begun = false
    private var committed = false
    private var ended = false

    init(connection: PostgresConnection, loop: EventLoop, preamble: [PostgresQuery]) {
        self.connection = connection
        self.loop = loop
        self.preamble = preamble
    }

    /// Runs statements in one round trip (with `BEGIN` and the identity, the first time) and
    /// returns their outputs, in order.
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
        guard !ended, !committed else {
            throw PostgresError(.client, message: "a transaction was used after it ended")
        }
        let head = begun ? [] : preamble
        begun = true
        return Array(try await connection.pipeline(head + queries, on: loop).dropFirst(head.count))
    }

    func commit() async throws {
        guard begun, !committed else { return }
        _ = try await connection.pipeline([PostgresQuery(sql: "commit")], on: loop)
        committed = true
    }

    func end() {
        ended = true
    }
}
