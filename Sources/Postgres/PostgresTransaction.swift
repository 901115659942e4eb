import EventLoops

/// A transaction in progress on a leased connection (`PostgresPool.withTransaction`): its
/// first round trip carries `BEGIN` and the identity, and the pool commits after the body.
public final class PostgresTransaction: PostgresLease {
    /// `BEGIN` and the identity: sent with the first statements.
    private let preamble: [PostgresQuery]
    private var begun = false
    private var committed = false

    init(connection: PostgresConnection, loop: EventLoop, preamble: [PostgresQuery]) {
        self.preamble = preamble
        super.init(connection: connection, loop: loop)
    }

    override func pipeline(_ queries: [PostgresQuery]) async throws -> [PostgresResult] {
        guard !committed else { throw PostgresError(.client, message: "a transaction was used after it committed") }
        let head = begun ? [] : preamble
        begun = true
        return Array(try await super.pipeline(head + queries).dropFirst(head.count))
    }

    func commit() async throws {
        guard begun, !committed else { return }
        _ = try await super.pipeline([PostgresQuery(sql: "commit")])
        committed = true
    }
}
