import EventLoops

/// A transaction in progress on a leased connection (`PostgresPool.withTransaction`): its
/// first round trip carries `BEGIN`, a write's id and the identity, and the pool commits after
/// the body.
public final class PostgresTransaction: PostgresLease {
    /// `BEGIN`, a write's id and the identity: sent with the first statements.
    private let preamble: [PostgresQuery]
    /// Whether the transaction reads its id before the commit, to learn its outcome if the
    /// connection breaks then (`PostgresPool+CommitOutcome`): a write's.
    private let readsItsID: Bool
    private let faults: PostgresFaults?
    private var begun = false
    private var committed = false
    /// The write's id, from its first round trip.
    private var transactionID: String?

    init(
        connection: PostgresConnection, loop: EventLoop, begin: PostgresQuery, prologue: [PostgresQuery],
        readsItsID: Bool = false, faults: PostgresFaults? = nil
    ) {
        preamble = [begin] + (readsItsID ? [PostgresPool.transactionID] : []) + prologue
        self.readsItsID = readsItsID
        self.faults = faults
        super.init(connection: connection, loop: loop)
    }

    override func pipeline(_ queries: [PostgresQuery]) async throws -> [PostgresResult] {
        guard !committed else { throw PostgresError(.client, message: "a transaction was used after it committed") }
        let head = begun ? [] : preamble
        begun = true
        let results = try await super.pipeline(head + queries)
        if readsItsID, !head.isEmpty { transactionID = PostgresPool.transactionID(in: results, at: 1) }
        return Array(results.dropFirst(head.count))
    }

    /// Commits; a write's lost connection is a `PostgresPool.LostWrite` carrying its id, read
    /// before the commit was sent.
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
                pending = try await connection.send([PostgresQuery(sql: "commit")], on: loop)
            } catch let error as PostgresError where error.isConnectionLost {
                // The commit may or may not have gone out: its id tells.
                throw PostgresPool.LostWrite(transactionID: transactionID, error: error)
            }
            do {
                if faults?.take(.afterCommit) == true {
                    try await connection.breakAfter(results: 0, of: &pending, on: loop)
                }
                _ = try await connection.collect(&pending, on: loop)
            } catch let error as PostgresError where error.isConnectionLost {
                throw PostgresPool.LostWrite(transactionID: transactionID, error: error)
            }
        }
        committed = true
    }
}
