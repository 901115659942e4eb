import EventLoops

/// A transaction in progress on a leased connection (`PostgresPool.withTransaction`): its
/// first round trip carries `BEGIN` and the identity, and the pool commits after the body.
public final class PostgresTransaction: PostgresLease {
    /// `BEGIN` and the identity: sent with the first statements.
    private let preamble: [PostgresQuery]
    /// Whether the commit reads the transaction's id first, to learn its outcome if the
    /// connection breaks (`PostgresPool+CommitOutcome`): a write's.
    private let readsItsID: Bool
    private let faults: PostgresFaults?
    private var begun = false
    private var committed = false

    init(
        connection: PostgresConnection, loop: EventLoop, preamble: [PostgresQuery], readsItsID: Bool = false,
        faults: PostgresFaults? = nil
    ) {
        self.preamble = preamble
        self.readsItsID = readsItsID
        self.faults = faults
        super.init(connection: connection, loop: loop)
    }

    override func pipeline(_ queries: [PostgresQuery]) async throws -> [PostgresResult] {
        guard !committed else { throw PostgresError(.client, message: "a transaction was used after it committed") }
        let head = begun ? [] : preamble
        begun = true
        return Array(try await super.pipeline(head + queries).dropFirst(head.count))
    }

    /// Commits; a write's lost connection is a `PostgresPool.LostWrite` carrying its id if the
    /// server's answer got here (it is sent at once, before the commit runs).
    func commit() async throws {
        guard begun, !committed else { return }
        guard readsItsID else {
            _ = try await super.pipeline([PostgresQuery(sql: "commit")])
            committed = true
            return
        }
        try checkActive()
        try await connection.exclusively {
            var pending: PendingPipeline
            do {
                pending = try await connection.send([PostgresPool.transactionID, PostgresQuery(sql: "commit")], flushAfter: 0, on: loop)
            } catch let error as PostgresError where error.isConnectionLost {
                // The commit may or may not have gone out.
                throw PostgresPool.LostWrite(transactionID: nil, error: error)
            }
            do {
                if faults?.takeCommitToBreak() == true {
                    try await connection.breakAfter(results: 1, of: &pending, on: loop)
                }
                _ = try await connection.collect(&pending, on: loop)
            } catch let error as PostgresError where error.isConnectionLost {
                throw PostgresPool.LostWrite(
                    transactionID: PostgresPool.transactionID(in: pending.results, at: 0), error: error,
                    beforeCommit: PostgresPool.endedBeforeCommit(error, pending))
            }
        }
        committed = true
    }
}
