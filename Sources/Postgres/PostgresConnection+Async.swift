import CLibPQ
import EventLoops
import Glibc

/// Pipelines on an event loop: sent without blocking, then read as the socket becomes
/// readable, so one loop thread serves every connection's round trip at once.
extension PostgresConnection {
    /// Runs statements in one round trip, like `pipeline(_:)`, waiting on `loop` instead of
    /// blocking a thread.
    @discardableResult
    func pipeline(_ queries: [PostgresQuery], on loop: EventLoop) async throws -> [PostgresResult] {
        var pending = try await send(queries, on: loop)
        return try await collect(&pending, on: loop)
    }

    /// Sends statements and a sync; their results are read with `collect(_:on:)`.
    func send(_ queries: [PostgresQuery], on loop: EventLoop) async throws -> PendingPipeline {
        let pending = try sendPipeline(queries)
        do {
            try await flush(on: loop)
        } catch {
            isBroken = true
            throw error
        }
        return pending
    }

    /// Reads a sent pipeline's results as they arrive; see `collect(_:)`.
    func collect(_ pending: inout PendingPipeline, on loop: EventLoop) async throws -> [PostgresResult] {
        while true {
            if let results = try advance(&pending, blocking: false) { return results }
            try await ready(for: .readable, on: loop)
            guard PQconsumeInput(handle) == 1 else {
                isBroken = true
                throw connectionError()
            }
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
                isBroken = true
                throw connectionError()
            }
        }
    }

    private func ready(for readiness: Readiness, on loop: EventLoop) async throws {
        do {
            try await loop.ready(PQsocket(handle), for: readiness)
        } catch {
            isBroken = true
            throw PostgresError(.connection, message: "cannot wait for the database socket: \(error)")
        }
    }

    /// `rollBackIfNeeded`, on the loop.
    func rollBackIfNeeded(on loop: EventLoop) async {
        guard isOpen, !isBroken, !isIdle else { return }
        do {
            try await pipeline([PostgresQuery(sql: "rollback")], on: loop)
        } catch {
            isBroken = true
        }
    }
}
