import EventLoops

/// Transactions that carry a request's identity.
extension PostgresPool {
    /// Runs `queries` as one transaction in one round trip: `BEGIN`, the identity, the
    /// statements and `COMMIT` are pipelined together. Returns the statements' results.
    /// Serialization failures and deadlocks are retried; a lost connection is retried only
    /// for read-only work, since a write may have committed before the connection broke.
    @discardableResult
    public func execute(
        as identity: PostgresIdentity, readOnly: Bool = false, _ queries: [PostgresQuery]
    ) throws -> [PostgresResult] {
        try retrying(readOnly: readOnly) {
            try withConnection { connection in
                let statements = Self.transactionStatements(queries, as: identity, readOnly: readOnly)
                do {
                    let results = try connection.pipeline(statements)
                    return Array(results.dropFirst(2).prefix(queries.count))
                } catch {
                    connection.rollBackIfNeeded()
                    throw error
                }
            }
        }
    }

    /// Runs `body` in a transaction with `identity`. `BEGIN` and the identity travel with
    /// the body's first statement; `COMMIT` follows the body. The body may run more than
    /// once (after a serialization failure or deadlock), so it must not have effects
    /// outside the database.
    public func withTransaction<T>(
        as identity: PostgresIdentity, readOnly: Bool = false,
        _ body: (PostgresTransaction) throws -> T
    ) throws -> T {
        try retrying(readOnly: readOnly) {
            try withConnection { connection in
                let transaction = PostgresTransaction(
                    connection: connection,
                    preamble: Array(Self.transactionStatements([], as: identity, readOnly: readOnly).prefix(2)))
                do {
                    let value = try body(transaction)
                    try transaction.commit()
                    return value
                } catch {
                    connection.rollBackIfNeeded()
                    throw error
                }
            }
        }
    }

    /// `BEGIN`, identity, statements, `COMMIT`: exactly what `execute` sends in one round
    /// trip (public so a benchmark can replay the same transaction elsewhere).
    public static func transactionStatements(
        _ queries: [PostgresQuery], as identity: PostgresIdentity, readOnly: Bool
    ) -> [PostgresQuery] {
        [PostgresQuery(sql: readOnly ? "begin read only" : "begin"), identity.statement]
            + queries + [PostgresQuery(sql: "commit")]
    }

    func retrying<T>(readOnly: Bool, _ attempt: () throws -> T) throws -> T {
        var attempts = 0
        while true {
            attempts += 1
            do {
                return try attempt()
            } catch let error as PostgresError where attempts < poolConfiguration.maxAttempts {
                guard error.isTransient || (error.isConnectionLost && readOnly) else { throw error }
            }
        }
    }
}

/// A transaction in progress on a leased connection. Only valid inside `withTransaction`.
/// Begun by the `async` `withTransaction`, it runs its statements with the `async` methods;
/// begun by the blocking one, with the blocking methods.
public final class PostgresTransaction {
    let connection: PostgresConnection
    /// Set when the transaction runs on an event loop.
    let eventLoop: EventLoop?
    private var preamble: [PostgresQuery]
    private var begun = false
    private var committed = false

    init(connection: PostgresConnection, preamble: [PostgresQuery], eventLoop: EventLoop? = nil) {
        self.connection = connection
        self.preamble = preamble
        self.eventLoop = eventLoop
    }

    @discardableResult
    public func query(_ query: PostgresQuery) throws -> PostgresResult {
        let results = try pipeline([query])
        guard let result = results.first else {
            throw PostgresError(.client, message: "pipeline returned no result")
        }
        return result
    }

    /// Runs statements in one round trip (with `BEGIN` and the identity, the first time).
    /// With `commit`, `COMMIT` travels in the same round trip and the transaction ends.
    public func pipeline(_ queries: [PostgresQuery], commit: Bool = false) throws -> [PostgresResult] {
        let statements = try begin(queries, commit: commit)
        let results = try connection.pipeline(statements.all)
        committed = commit
        return Array(results.dropFirst(statements.headCount).prefix(queries.count))
    }

    func commit() throws {
        guard begun, !committed else { return }
        try connection.pipeline([PostgresQuery(sql: "commit")])
        committed = true
    }

    @discardableResult
    public func query(_ query: PostgresQuery) async throws -> PostgresResult {
        let results = try await pipeline([query])
        guard let result = results.first else {
            throw PostgresError(.client, message: "pipeline returned no result")
        }
        return result
    }

    /// `pipeline(_:commit:)`, waiting on the event loop.
    public func pipeline(_ queries: [PostgresQuery], commit: Bool = false) async throws -> [PostgresResult] {
        guard let eventLoop else {
            throw PostgresError(.client, message: "this transaction was not begun on an event loop")
        }
        let statements = try begin(queries, commit: commit)
        let results = try await connection.pipeline(statements.all, on: eventLoop)
        committed = commit
        return Array(results.dropFirst(statements.headCount).prefix(queries.count))
    }

    func commit(on loop: EventLoop) async throws {
        guard begun, !committed else { return }
        try await connection.pipeline([PostgresQuery(sql: "commit")], on: loop)
        committed = true
    }

    /// The statements to send: the preamble the first time, the queries, and `COMMIT` if asked.
    private func begin(_ queries: [PostgresQuery], commit: Bool) throws -> (all: [PostgresQuery], headCount: Int) {
        guard !committed else {
            throw PostgresError(.client, message: "the transaction has already committed")
        }
        let head = begun ? [] : preamble
        let tail = commit ? [PostgresQuery(sql: "commit")] : []
        begun = true
        return (head + queries + tail, head.count)
    }
}

extension PostgresConnection {
    /// Ends a failed transaction so the connection can be pooled again; if even that fails
    /// the connection is marked broken and the pool closes it.
    func rollBackIfNeeded() {
        guard isOpen, !isBroken else { return }
        guard !isIdle else { return }
        do {
            try pipeline([PostgresQuery(sql: "rollback")])
        } catch {
            isBroken = true
        }
    }
}
