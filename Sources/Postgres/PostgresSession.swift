import EventLoops

/// A leased connection for work that needs the same connection from one statement to the next
/// (`PostgresPool.withSession`): each `execute` is one round trip, in one implicit transaction
/// unless its statements begin one.
public final class PostgresSession: PostgresLease {
    /// The server process serving this session.
    public var backendPID: Int32 { connection.backendPID }

    /// Runs a script of several statements with the simple query protocol, without
    /// parameters: only for SQL the program ships (migrations, the seed), never for values.
    public func unsafeExecuteScript(_ sql: String) async throws {
        try checkActive()
        try await connection.unsafeExecuteScript(sql, on: loop)
    }

    /// Ends an open transaction after a failure, so the connection can be pooled again.
    public func rollBackIfNeeded() async {
        guard isActive else { return }
        await connection.rollBackIfNeeded(on: loop)
    }
}
