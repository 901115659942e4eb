import EventLoops

/// The pool's `async` side: leases that wait without blocking, and transactions whose round
/// trips wait on the event loop. The same statements and retry rules as the blocking side.
extension PostgresPool {
    /// The loop the caller runs on, so that its sockets are waited on there; else the pool's.
    private func loop() throws -> EventLoop {
        guard let eventLoop = EventLoop.current ?? eventLoop else {
            throw PostgresError(.client, message: "this pool has no event loop for async work")
        }
        return eventLoop
    }

    /// Leases `count` connections at once, all or none (see `lease(count:)`), waiting on the
    /// event loop. New connections are opened on a thread made for blocking. Without
    /// `checkingIdle`, idle connections are handed out without asking the kernel whether the
    /// server closed them meanwhile (see `retrying`).
    func lease(count: Int, on loop: EventLoop, checkingIdle: Bool = true) async throws -> [PostgresConnection] {
        precondition(count >= 1 && count <= poolConfiguration.maxConnections, "lease count out of range")
        var leased: [PostgresConnection] = []
        do {
            while leased.count < count {
                let (reused, toOpen) = try await reserve(count - leased.count, on: loop)
                leased += checkingIdle ? healthy(reused) : reused
                for opened in 0..<toOpen {
                    do {
                        leased.append(try await BlockingWork.run { try self.openConnection() })
                    } catch {
                        unreserve(toOpen - opened - 1)
                        throw error
                    }
                }
            }
        } catch {
            leased.forEach(release)
            throw error
        }
        return leased
    }

    /// `execute(as:readOnly:_:)`, waiting on the event loop.
    @discardableResult
    public func execute(
        as identity: PostgresIdentity, readOnly: Bool = false, _ queries: [PostgresQuery]
    ) async throws -> [PostgresResult] {
        let loop = try loop()
        return try await retrying(readOnly: readOnly) { checkingIdle in
            let connection = try await lease(count: 1, on: loop, checkingIdle: checkingIdle)[0]
            defer { release(connection) }
            let statements = Self.transactionStatements(queries, as: identity, readOnly: readOnly)
            do {
                let results = try await connection.pipeline(statements, on: loop)
                return Array(results.dropFirst(2).prefix(queries.count))
            } catch {
                await connection.rollBackIfNeeded(on: loop)
                throw error
            }
        }
    }

    /// `withTransaction(as:readOnly:_:)`, waiting on the event loop; `body` runs its
    /// statements with the transaction's `async` methods.
    public func withTransaction<T>(
        as identity: PostgresIdentity, readOnly: Bool = false,
        _ body: (PostgresTransaction) async throws -> T
    ) async throws -> T {
        let loop = try loop()
        return try await retrying(readOnly: readOnly) { checkingIdle in
            let connection = try await lease(count: 1, on: loop, checkingIdle: checkingIdle)[0]
            defer { release(connection) }
            let transaction = PostgresTransaction(
                connection: connection,
                preamble: Array(Self.transactionStatements([], as: identity, readOnly: readOnly).prefix(2)),
                eventLoop: loop)
            do {
                let value = try await body(transaction)
                try await transaction.commit(on: loop)
                return value
            } catch {
                await connection.rollBackIfNeeded(on: loop)
                throw error
            }
        }
    }

    /// Runs two read-only transactions at once on two connections (both pipelines are sent
    /// before either is awaited, so the server runs them side by side) and returns both
    /// statements' results: the answer takes as long as the slower one.
    public func executeConcurrently(
        as identity: PostgresIdentity,
        _ first: [PostgresQuery], _ second: [PostgresQuery]
    ) async throws -> ([PostgresResult], [PostgresResult]) {
        let loop = try loop()
        return try await retrying(readOnly: true) { checkingIdle in
            let connections = try await lease(count: 2, on: loop, checkingIdle: checkingIdle)
            defer { connections.forEach(release) }
            let batches = [first, second]
            do {
                var pending: [PendingPipeline] = []
                for (connection, queries) in zip(connections, batches) {
                    pending.append(try await connection.send(
                        Self.transactionStatements(queries, as: identity, readOnly: true), on: loop))
                }
                var results: [[PostgresResult]] = []
                var firstError: (any Error)?
                // Drain both even if one fails, so neither connection is left mid-pipeline.
                for index in pending.indices {
                    do {
                        let all = try await connections[index].collect(&pending[index], on: loop)
                        results.append(Array(all.dropFirst(2).prefix(batches[index].count)))
                    } catch {
                        if firstError == nil { firstError = error }
                    }
                }
                if let firstError { throw firstError }
                return (results[0], results[1])
            } catch {
                for connection in connections { await connection.rollBackIfNeeded(on: loop) }
                throw error
            }
        }
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
                guard error.isTransient || (error.isConnectionLost && readOnly) else { throw error }
            }
        }
    }
}
