import CLibPQ
import EventLoops
import Glibc

/// Round trips on an event loop: sent without blocking, then read as the socket becomes
/// readable, so one loop thread serves every connection's round trip at once.
extension PostgresConnection {
    /// Runs statements in one round trip (libpq pipeline mode) and returns their results in
    /// order. Without an explicit `BEGIN` they share one implicit transaction; if one fails,
    /// the rest are skipped and the first error is thrown.
    func pipeline(_ queries: [PostgresQuery], on loop: EventLoop) async throws -> [PostgresResult] {
        try await exclusively {
            var pending = try await send(queries, on: loop)
            return try await collect(&pending, on: loop)
        }
    }

    /// Sends statements and a sync; their results are read with `collect(_:on:)`.
    func send(_ queries: [PostgresQuery], flushAfter: Int? = nil, sync: Bool = true, on loop: EventLoop) async throws -> PendingPipeline {
        let pending = try sendPipeline(queries, flushAfter: flushAfter, sync: sync)
        try await flush(on: loop)
        return pending
    }

    /// Sends the rest of a pipeline sent without its sync, and the sync.
    func sendRest(_ queries: [PostgresQuery], of pending: inout PendingPipeline, on loop: EventLoop) async throws {
        try extendPipeline(&pending, with: queries, sync: true)
        try await flush(on: loop)
    }

    /// Reads results until `count` have arrived, or an error has: the statements after an
    /// error are skipped, so their results never come.
    func awaitResults(_ count: Int, of pending: inout PendingPipeline, on loop: EventLoop) async throws {
        while true {
            _ = try advance(&pending, stoppingAt: count)
            if pending.results.count >= count || pending.firstError != nil { return }
            try await consumeInput(on: loop)
        }
    }

    /// Reads a sent pipeline's results as they arrive; see `advance(_:)`.
    func collect(_ pending: inout PendingPipeline, on loop: EventLoop) async throws -> [PostgresResult] {
        while true {
            if let results = try advance(&pending) { return results }
            try await consumeInput(on: loop)
        }
    }

    /// For `PostgresFaults`: reads results until `count` have arrived, gives the server time to
    /// run what it was sent, then cuts the connection as a network would and fails as a read
    /// from it would: whatever else arrived is never read.
    func breakAfter(results count: Int, of pending: inout PendingPipeline, on loop: EventLoop) async throws {
        while pending.results.count < count {
            _ = try advance(&pending, stoppingAt: count)
            if pending.results.count < count { try await consumeInput(on: loop) }
        }
        try await Task.sleep(for: .milliseconds(100))
        shutdown(PQsocket(handle), Int32(SHUT_RDWR))
        markBroken()
        throw PostgresError(.connection, message: "the connection was cut (injected fault)")
    }

    /// Runs a script of several statements with the simple query protocol, without
    /// parameters. Only for SQL the program ships (migrations, the seed), never for values.
    func unsafeExecuteScript(_ sql: String, on loop: EventLoop) async throws {
        try await exclusively {
            guard PQsendQuery(handle, sql) == 1 else {
                markBroken()
                throw connectionError()
            }
            try await flush(on: loop)
            var firstError: PostgresError?
            while true {
                while PQisBusy(handle) == 1 { try await consumeInput(on: loop) }
                guard let raw = PQgetResult(handle) else { break }
                defer { PQclear(raw) }
                switch PQresultStatus(raw) {
                case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                    break
                default:
                    if firstError == nil { firstError = serverError(raw) }
                }
            }
            if let firstError { throw firstError }
        }
    }

    /// Ends a failed transaction so the connection can be pooled again; if even that fails the
    /// connection is marked broken and the pool closes it.
    func rollBackIfNeeded(on loop: EventLoop) async {
        guard isOpen, !isBroken, !isIdle else { return }
        do {
            _ = try await pipeline([PostgresQuery(sql: "rollback")], on: loop)
        } catch {
            isBroken = true
        }
    }

    /// Ends whatever a session left open or set: its transaction, settings, locks, temporary
    /// tables and prepared statements. A connection that cannot be reset is marked broken, and
    /// the pool closes it.
    func resetSession(on loop: EventLoop) async {
        await rollBackIfNeeded(on: loop)
        guard isOpen, !isBroken else { return }
        do {
            try await unsafeExecuteScript("discard all", on: loop)
            preparedStatements.removeAll()
        } catch {
            markBroken()
        }
    }

    /// Waits until the socket is readable, then reads what arrived into libpq's buffer.
    private func consumeInput(on loop: EventLoop) async throws {
        try await ready(for: .readable, on: loop)
        guard PQconsumeInput(handle) == 1 else {
            markBroken()
            throw connectionError()
        }
    }

    /// Writes out what libpq has buffered.
    private func flush(on loop: EventLoop) async throws {
        while true {
            switch PQflush(handle) {
            case 0:
                return
            case 1:
                try await ready(for: .writable, on: loop)
            default:
                markBroken()
                throw connectionError()
            }
        }
    }

    private func ready(for readiness: Readiness, on loop: EventLoop) async throws {
        do {
            try await loop.ready(PQsocket(handle), for: readiness)
        } catch {
            markBroken()
            throw PostgresError(.connection, message: "cannot wait for the database socket: \(error)")
        }
    }
}
