import CLibPQ
import Glibc

/// Statements sent in pipeline mode whose results have not all been read yet, and how far
/// reading has got: results can be read as they arrive, without blocking.
struct PendingPipeline {
    enum Step {
        /// A `Parse` of a statement new to this connection; cached once the server accepts it.
        case prepare(name: String, sql: String)
        case execute
    }

    var steps: [Step] = []
    /// The step whose result is read next.
    var next = 0
    /// The step's result is in; the NULL that ends it is not.
    var awaitingEnd = false
    var results: [PostgresResult] = []
    var firstError: PostgresError?
    /// Statements whose `Parse` is sent but not yet answered, by their names.
    var preparing: [StatementKey: String] = [:]
    /// Whether the pipeline's sync is sent: until then, more statements may follow.
    var synced = false
}

extension PostgresConnection {
    /// Sends statements and a sync without waiting, so a caller can send on several
    /// connections before collecting from any of them. `flushAfter` names a statement whose
    /// result the server sends at once rather than with the rest at the sync. Without `sync`,
    /// the pipeline stays open for `extendPipeline`.
    func sendPipeline(_ queries: [PostgresQuery], flushAfter: Int? = nil, sync: Bool = true) throws -> PendingPipeline {
        var pending = PendingPipeline()
        pending.steps.reserveCapacity(queries.count)
        pending.results.reserveCapacity(queries.count)
        try extendPipeline(&pending, with: queries, flushAfter: flushAfter, sync: sync)
        return pending
    }

    /// Adds statements to a pipeline whose sync is not sent yet, and the sync if `sync`.
    func extendPipeline(_ pending: inout PendingPipeline, with queries: [PostgresQuery], flushAfter: Int? = nil, sync: Bool) throws {
        guard !pending.synced, PQenterPipelineMode(handle) == 1 else { throw connectionError() }
        do {
            for (index, query) in queries.enumerated() {
                let name: String?
                let key = StatementKey(query.sql)
                if let known = preparedStatements[key] ?? pending.preparing[key] {
                    name = known
                } else if reusesStatements, preparedStatements.count + pending.preparing.count < Self.preparedStatementLimit {
                    let fresh = "chirp_\(preparedStatements.count + pending.preparing.count)"
                    guard PQsendPrepare(handle, fresh, query.sql, Int32(query.bindings.count), nil) == 1 else {
                        throw connectionError()
                    }
                    pending.preparing[key] = fresh
                    pending.steps.append(.prepare(name: fresh, sql: query.sql))
                    name = fresh
                } else {
                    name = nil
                }
                try send(query, statement: name)
                pending.steps.append(.execute)
                if index == flushAfter {
                    guard PQsendFlushRequest(handle) == 1 else { throw connectionError() }
                }
            }
            if sync {
                guard PQpipelineSync(handle) == 1 else { throw connectionError() }
                pending.synced = true
            }
        } catch {
            // The connection is in an unknown protocol state; nobody may reuse it.
            markBroken()
            throw error
        }
    }

    private func send(_ query: PostgresQuery, statement name: String?) throws {
        // Every value in one buffer, each ended by a NUL, rather than a C string apiece: libpq
        // copies them into its output buffer before the call returns.
        parameterText.removeAll(keepingCapacity: true)
        for case let binding? in query.bindings {
            parameterText.append(contentsOf: binding.utf8)
            parameterText.append(0)
        }
        let count = query.bindings.count
        let sent = parameterText.withUnsafeBytes { text in
            withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: count) { values in
                var offset = 0
                for (index, binding) in query.bindings.enumerated() {
                    guard let binding, let base = text.baseAddress else {
                        values[index] = nil
                        continue
                    }
                    values[index] = (base + offset).assumingMemoryBound(to: CChar.self)
                    offset += binding.utf8.count + 1
                }
                // `withCString` passes a short name from the stack; handing libpq the `String`
                // itself would copy it into a new array first.
                return if let name {
                    name.withCString { name in
                        PQsendQueryPrepared(handle, name, Int32(count), values.baseAddress, nil, nil, binaryResults)
                    }
                } else {
                    PQsendQueryParams(
                        handle, query.sql, Int32(count), nil, values.baseAddress, nil, nil, binaryResults)
                }
            }
        }
        // A large value (a stored response, a long body) need not stay with the connection.
        if parameterText.capacity > Self.keptParameterCapacity { parameterText = [] }
        guard sent == 1 else { throw connectionError() }
    }

    /// The most parameter bytes a connection keeps between statements.
    private static var keptParameterCapacity: Int { 64 * 1024 }

    /// Results come back in binary (libpq's `resultFormat` 1): the server sends each value's
    /// binary form instead of printing it, and decoding reads it without parsing. Parameters
    /// still go as text, which every type accepts.
    private var binaryResults: Int32 { 1 }

    /// Reads whatever results of `pending` have arrived, without waiting. Returns them all once
    /// the pipeline's sync is in, or nil when more input is needed (or, before the sync is sent,
    /// when every statement sent so far is answered). Throws the first error only
    /// after the whole pipeline has been drained, so the connection stays usable. With
    /// `stoppingAt`, it stops (returning nil) once that many results are in.
    func advance(_ pending: inout PendingPipeline, stoppingAt limit: Int = .max) throws -> [PostgresResult]? {
        while true {
            if pending.results.count >= limit && !pending.awaitingEnd { return nil }
            if PQisBusy(handle) == 1 { return nil }
            guard pending.next < pending.steps.count else { return pending.synced ? try finish(&pending) : nil }
            if pending.awaitingEnd {
                // Each statement's results end with a NULL.
                if let extra = PQgetResult(handle) {
                    PQclear(extra)
                } else {
                    pending.awaitingEnd = false
                    pending.next += 1
                }
                continue
            }
            guard let raw = PQgetResult(handle) else {
                markBroken()
                throw connectionError()
            }
            let result = PostgresResult(taking: raw)
            let status = PQresultStatus(raw)
            switch (pending.steps[pending.next], status) {
            case (.prepare(let name, let sql), PGRES_COMMAND_OK):
                let key = StatementKey(sql)
                preparedStatements[key] = name
                pending.preparing[key] = nil
            case (.execute, PGRES_COMMAND_OK), (.execute, PGRES_TUPLES_OK), (.execute, PGRES_EMPTY_QUERY):
                pending.results.append(result)
            case (_, PGRES_PIPELINE_ABORTED):
                break
            default:
                if pending.firstError == nil { pending.firstError = serverError(raw) }
                if PQstatus(handle) != CONNECTION_OK {
                    markBroken()
                    throw pending.firstError ?? connectionError()
                }
            }
            pending.awaitingEnd = true
        }
    }

    /// The pipeline's sync: the end of its results.
    private func finish(_ pending: inout PendingPipeline) throws -> [PostgresResult] {
        guard let sync = PQgetResult(handle) else {
            markBroken()
            throw pending.firstError ?? connectionError()
        }
        let syncStatus = PQresultStatus(sync)
        PQclear(sync)
        guard syncStatus == PGRES_PIPELINE_SYNC, PQexitPipelineMode(handle) == 1 else {
            markBroken()
            throw pending.firstError ?? connectionError()
        }
        if let firstError = pending.firstError { throw firstError }
        return pending.results
    }

    /// After a protocol failure the connection cannot be trusted: the pool discards it.
    func markBroken() {
        isBroken = true
    }
}
