import EventLoops

/// Transactions that carry a request's identity.
extension PostgresPool {
    /// Runs statements as one transaction in one round trip: `BEGIN`, the identity, the
    /// statements and `COMMIT` are pipelined together. Returns the statements' outputs, in
    /// order. Serialization failures and deadlocks are retried; a lost connection is retried
    /// for read-only work, and for a write only once the server says it did not commit
    /// (`PostgresPool+CommitOutcome`).
    @discardableResult
    public func execute<each Statement: PostgresStatement>(
        as identity: PostgresIdentity, readOnly: Bool = false, _ statements: repeat each Statement
    ) async throws -> (repeat (each Statement).Output) {
        let results = try await execute(PostgresStatements.queries(repeat each statements), as: identity, readOnly: readOnly)
        return try PostgresStatements.read(results, repeat each statements)
    }

    /// `execute` for one statement. The same call, spelled without a parameter pack: given one
    /// statement the pack form would let `if let` and `== nil` see an output wrapped once more.
    @discardableResult
    public func execute<Statement: PostgresStatement>(
        as identity: PostgresIdentity, readOnly: Bool = false, _ statement: Statement
    ) async throws -> Statement.Output {
        try statement.read(PostgresStatements.only(try await execute([statement.query], as: identity, readOnly: readOnly)))
    }

    private func execute(_ queries: [PostgresQuery], as identity: PostgresIdentity, readOnly: Bool) async throws -> [PostgresResult] {
        let loop = currentLoop
        guard readOnly else {
            return try await retrying(readOnly: false) { checkingIdle in
                do {
                    return try await attemptWrite(queries, as: identity, on: loop, checkingIdle: checkingIdle)
                } catch let lost as LostWrite {
                    throw await outcome(of: lost)
                }
            }
        }
        return try await retrying(readOnly: readOnly) { checkingIdle in
            let connection = try await lease(count: 1, on: loop, checkingIdle: checkingIdle)[0]
            defer { release(connection) }
            do {
                let results = try await connection.pipeline(
                    Self.transactionStatements(queries, as: identity, readOnly: readOnly), on: loop)
                return Array(results.dropFirst(1 + identity.prologueCount).prefix(queries.count))
            } catch {
                await connection.rollBackIfNeeded(on: loop)
                throw error
            }
        }
    }

    /// Runs `body` in a transaction with `identity`. `BEGIN`, a write's id and the identity
    /// travel with the body's first statements; `COMMIT` follows the body. The body may run more
    /// than once (after a serialization failure or deadlock, or a connection lost before the
    /// commit), so it must not have effects outside the database. A connection lost at the
    /// commit is resolved as `execute` resolves it. The transaction is valid only inside `body`.
    public func withTransaction<T>(
        as identity: PostgresIdentity, readOnly: Bool = false,
        _ body: (PostgresTransaction) async throws -> T
    ) async throws -> T {
        let loop = currentLoop
        return try await retrying(readOnly: readOnly) { checkingIdle in
            do {
                return try await attemptTransaction(as: identity, readOnly: readOnly, on: loop, checkingIdle: checkingIdle, body)
            } catch let lost as LostWrite {
                throw await outcome(of: lost)
            }
        }
    }

    /// One attempt of `withTransaction`; a write's connection lost at its commit is a
    /// `LostWrite`, thrown once the connection is released.
    private func attemptTransaction<T>(
        as identity: PostgresIdentity, readOnly: Bool, on loop: EventLoop, checkingIdle: Bool,
        _ body: (PostgresTransaction) async throws -> T
    ) async throws -> T {
        let connection = try await lease(count: 1, on: loop, checkingIdle: checkingIdle)[0]
        defer { release(connection) }
        let transaction = PostgresTransaction(
            connection: connection, loop: loop,
            begin: PostgresQuery(sql: readOnly ? "begin read only" : "begin"), prologue: identity.prologue,
            readsItsID: !readOnly, faults: faults)
        defer { transaction.end() }
        let value: T
        do {
            value = try await body(transaction)
        } catch let error as PostgresError where error.isConnectionLost && !readOnly {
            // Before its commit was sent: the transaction is gone with its connection.
            throw PostgresError(.lostBeforeCommit, message: error.message)
        } catch {
            await connection.rollBackIfNeeded(on: loop)
            throw error
        }
        do {
            try await transaction.commit()
        } catch let lost as LostWrite {
            throw lost
        } catch {
            await connection.rollBackIfNeeded(on: loop)
            throw error
        }
        return value
    }

    /// Runs two read-only statements at once, each in a transaction of its own on its own
    /// connection: both pipelines are sent before either is awaited, so the server runs them
    /// side by side and the answer takes as long as the slower one. A pool of one connection
    /// runs them one after the other.
    public func executeConcurrently<First: PostgresStatement, Second: PostgresStatement>(
        as identity: PostgresIdentity, _ first: First, _ second: Second
    ) async throws -> (First.Output, Second.Output) {
        guard poolConfiguration.maxConnections >= 2 else {
            return (try await execute(as: identity, readOnly: true, first), try await execute(as: identity, readOnly: true, second))
        }
        let loop = currentLoop
        let batches = [[first.query], [second.query]]
        let results = try await retrying(readOnly: true) { checkingIdle in
            let connections = try await lease(count: 2, on: loop, checkingIdle: checkingIdle)
            defer { connections.forEach(release) }
            do {
                return try await connections[0].exclusively {
                    try await connections[1].exclusively {
                        try await Self.sendAndCollect(batches, on: connections, as: identity, loop: loop)
                    }
                }
            } catch {
                // Outside `exclusively`: rolling back is a round trip of its own on each.
                for connection in connections { await connection.rollBackIfNeeded(on: loop) }
                throw error
            }
        }
        return (try first.read(results[0]), try second.read(results[1]))
    }

    /// Sends each batch as a read-only transaction on its connection, then collects them all:
    /// the first statement's result of each. On failure the caller rolls back.
    private static func sendAndCollect(
        _ batches: [[PostgresQuery]], on connections: [PostgresConnection], as identity: PostgresIdentity, loop: EventLoop
    ) async throws -> [PostgresResult] {
        var pending: [PendingPipeline] = []
        for (connection, queries) in zip(connections, batches) {
            pending.append(try await connection.send(
                transactionStatements(queries, as: identity, readOnly: true), on: loop))
        }
        var results: [PostgresResult] = []
        var firstError: (any Error)?
        // Drain every one even if one fails, so no connection is left mid-pipeline.
        for index in pending.indices {
            do {
                let all = try await connections[index].collect(&pending[index], on: loop)
                results.append(contentsOf: all.dropFirst(1 + identity.prologueCount).prefix(1))
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        if let firstError { throw firstError }
        return results
    }

    /// `BEGIN`, a write's transaction id (`PostgresPool+CommitOutcome`), the identity's
    /// prologue, statements, `COMMIT`: what `execute` sends in one round trip.
    package static func transactionStatements(
        _ queries: [PostgresQuery], as identity: PostgresIdentity, readOnly: Bool
    ) -> [PostgresQuery] {
        (readOnly ? [PostgresQuery(sql: "begin read only")] : [PostgresQuery(sql: "begin"), transactionID])
            + identity.prologue + queries + [PostgresQuery(sql: "commit")]
    }

    /// Runs `attempt` until it succeeds or fails for good, telling it whether to check idle
    /// connections before use. Checking costs a system call per connection, and only a write
    /// needs it: a read that finds its connection closed by the server is simply run again,
    /// checked this time, so a read skips the check on its first attempt when it has another.
    func retrying<T>(readOnly: Bool, _ attempt: (_ checkingIdle: Bool) async throws -> T) async throws -> T {
        var attempts = 0
        while true {
            attempts += 1
            do {
                let mayRetry = readOnly && attempts == 1 && poolConfiguration.maxAttempts > 1
                return try await attempt(!mayRetry)
            } catch let error as PostgresError where attempts < poolConfiguration.maxAttempts {
                guard error.isTransient || (error.isConnectionLost && readOnly) || error.kind == .lostBeforeCommit else { throw error }
            }
        }
    }
}
