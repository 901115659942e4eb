/// Two reads at once, without threads: both pipelines are sent on two connections before
/// either is read, so the server works on them in parallel and the caller waits for the
/// slower one, not the sum.
extension PostgresPool {
    public func executeConcurrently(
        as identity: PostgresIdentity,
        _ first: [PostgresQuery], _ second: [PostgresQuery]
    ) throws -> ([PostgresResult], [PostgresResult]) {
        try retrying(readOnly: true) {
            let connections = try lease(count: 2)
            defer { connections.forEach(release) }
            let batches = [first, second]
            do {
                var pending: [PendingPipeline] = []
                for (connection, queries) in zip(connections, batches) {
                    pending.append(try connection.sendPipeline(Self.transactionStatements(queries, as: identity, readOnly: true)))
                }
                var results: [[PostgresResult]] = []
                var firstError: Error?
                // Drain both even if one fails, so neither connection is left mid-pipeline.
                for (index, connection) in connections.enumerated() where index < pending.count {
                    do {
                        let all = try connection.collect(pending[index])
                        results.append(Array(all.dropFirst(2).prefix(batches[index].count)))
                    } catch {
                        if firstError == nil { firstError = error }
                    }
                }
                if let firstError { throw firstError }
                return (results[0], results[1])
            } catch {
                connections.forEach { $0.rollBackIfNeeded() }
                throw error
            }
        }
    }
}
