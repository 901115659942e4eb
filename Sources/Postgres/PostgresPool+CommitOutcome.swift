import EventLoops

/// What a write whose connection broke did. Reads are simply run again, but a write may have
/// committed before the connection broke, and a client told "failed" would then retry and
/// duplicate it, or drop a write that exists. So every write transaction reads its own id
/// (`pg_current_xact_id()`) before its `COMMIT` is sent: when the connection breaks before the
/// id arrived, the commit never left, and the write is run again as if nothing happened. When
/// it breaks after, a fresh connection asks `pg_xact_status` what became of the id. Aborted:
/// run again. Committed: the caller learns that it took effect without its results
/// (`committedUnanswered`), and answers from what it knows. Still in progress after a bounded
/// wait, or not askable (the database is down): the caller is told exactly that
/// (`outcomeUnknown`); a client retrying with the same `Idempotency-Key` then gets the write
/// exactly once. Never a guess.
extension PostgresPool {
    /// The transaction's id, as text: assigns one if the transaction has none yet.
    static let transactionID = PostgresQuery(sql: "select pg_current_xact_id()::text")

    /// A write's connection broke; `transactionID` is its id if the server's answer got here.
    /// `beforeCommit`: the transaction certainly did not commit. Its `COMMIT` was never sent,
    /// or the server itself reported the end of the session (a terminated backend's FATAL) in
    /// place of a statement's result before the commit's: results arrive in order, so the
    /// server had not finished that statement, let alone the commit after it.
    struct LostWrite: Error {
        var transactionID: String?
        var error: PostgresError
        var beforeCommit = false
    }

    /// Whether `error`, read as the result of `pending`'s next step, ended the session before
    /// the pipeline's last statement (its `COMMIT`) was answered.
    static func endedBeforeCommit(_ error: PostgresError, _ pending: PendingPipeline) -> Bool {
        error.sqlState != nil && pending.next < pending.steps.count - 1
    }

    /// The write's transaction id from its id statement's result, if it arrived.
    static func transactionID(in results: [PostgresResult], at index: Int) -> String? {
        guard results.indices.contains(index) else { return nil }
        return try? results[index].decode(String.self, row: 0, column: 0)
    }

    /// What to throw for a write lost with its connection: asks a fresh connection whether the
    /// transaction committed.
    func outcome(of lost: LostWrite) async -> PostgresError {
        if lost.beforeCommit {
            return PostgresError(.lostBeforeCommit, message: "the transaction was lost before its commit: \(lost.error.message)")
        }
        guard let id = lost.transactionID else {
            return PostgresError(
                .outcomeUnknown, message: "the connection broke before the transaction's id arrived: \(lost.error.message)")
        }
        var status: String?
        var lastError: (any Error)?
        // A backend whose client is gone may still be finishing the transaction (or waiting to
        // be told its client left): ask again, a little later each time, for about three
        // seconds. A write under a busy machine's load took more than one to finish its
        // triggers and commit after its client left.
        for pause in [0, 50, 100, 200, 300, 400, 500, 700, 800] {
            try? await Task.sleep(for: .milliseconds(pause))
            do {
                status = try await withSession { session in
                    try await session.execute(
                        PostgresQuery("select pg_xact_status(\(id)::xid8)").onlyRow { try $0.decode(String?.self, at: 0) })
                }
                lastError = nil
                if status != "in progress" { break }
            } catch {
                // The connection asked on may have gone the same way, or the database is down.
                lastError = error
            }
        }
        if let lastError {
            return PostgresError(
                .outcomeUnknown, message: "transaction \(id) was lost with its connection, and its outcome could not be read: \(lastError)")
        }
        switch status {
        case "committed":
            return PostgresError(.committedUnanswered, message: "transaction \(id) committed, but its connection broke: \(lost.error.message)")
        case "aborted":
            return PostgresError(.lostBeforeCommit, message: "transaction \(id) did not commit: \(lost.error.message)")
        default:
            // Still in progress (the server has not noticed the broken connection yet) or
            // forgotten: not known.
            return PostgresError(
                .outcomeUnknown, message: "transaction \(id) is \(status ?? "unknown") after its connection broke: \(lost.error.message)")
        }
    }

    /// One attempt at a write pipeline: `BEGIN`, the transaction's id (sent back at once), the
    /// identity's prologue and the statements go out together; `COMMIT` and the sync follow once
    /// the id is in hand, while the server runs the statements. So a connection that breaks
    /// before the id arrived never carried the commit, and one that breaks after it leaves an
    /// id to ask about. Returns the statements' results; a broken connection is a `LostWrite`,
    /// thrown after the connection is released.
    func attemptWrite(
        _ queries: [PostgresQuery], as identity: PostgresIdentity, on loop: EventLoop, checkingIdle: Bool
    ) async throws -> [PostgresResult] {
        let connection = try await lease(count: 1, on: loop, checkingIdle: checkingIdle)[0]
        defer { release(connection) }
        let statements = Self.transactionStatements(queries, as: identity, readOnly: false)
        do {
            return try await connection.exclusively {
                var pending = try await connection.send(Array(statements.dropLast()), flushAfter: 1, sync: false, on: loop)
                do {
                    if faults.take(.beforeTransactionID) {
                        try await connection.breakAfter(results: 0, of: &pending, on: loop)
                    }
                    try await connection.awaitResults(2, of: &pending, on: loop)
                } catch let error as PostgresError where error.isConnectionLost {
                    throw LostWrite(transactionID: nil, error: error, beforeCommit: true)
                }
                let id = Self.transactionID(in: pending.results, at: 1)
                do {
                    try await connection.sendRest([statements[statements.count - 1]], of: &pending, on: loop)
                    if faults.take(.afterCommit) {
                        try await connection.breakAfter(results: 2, of: &pending, on: loop)
                    }
                    let results = try await connection.collect(&pending, on: loop)
                    return Array(results.dropFirst(2 + identity.prologueCount).prefix(queries.count))
                } catch let error as PostgresError where error.isConnectionLost {
                    // After an error the server skips the rest, commit included.
                    throw LostWrite(
                        transactionID: id, error: error,
                        beforeCommit: pending.firstError != nil || Self.endedBeforeCommit(error, pending))
                }
            }
        } catch let lost as LostWrite {
            throw lost
        } catch let error as PostgresError where error.isConnectionLost {
            // Broken while sending the first part: the commit was not among it.
            throw LostWrite(transactionID: nil, error: error, beforeCommit: true)
        } catch {
            await connection.rollBackIfNeeded(on: loop)
            throw error
        }
    }
}
