import Postgres

/// Reads that can tolerate replication lag: on a fit replica when there is one (`Replicas`),
/// on the primary otherwise. A signed-in viewer still reads their own writes: their session is
/// checked and their write mark read on the primary first, and the replica transaction starts
/// by requiring the mark replayed (`sql/migrations/0016_write_marks.sql`); a replica that has
/// not is passed over for this read.
/// A replica that fails for want of itself (gone, unreachable, no free connection, a conflict
/// with recovery) is marked failed and the read is answered by the primary: never a 500.
extension Services {
    func read<each Statement: PostgresStatement>(
        as identity: PostgresIdentity, for viewer: Viewer?, _ statements: repeat each Statement
    ) async throws -> (repeat (each Statement).Output) {
        try await routed(as: identity, for: viewer) { pool, identity in
            try await pool.execute(as: identity, readOnly: true, repeat each statements)
        }
    }

    /// `read` for one statement (see `PostgresPool.execute(as:readOnly:_:)` for why).
    func read<Statement: PostgresStatement>(
        as identity: PostgresIdentity, for viewer: Viewer?, _ statement: Statement
    ) async throws -> Statement.Output {
        try await routed(as: identity, for: viewer) { pool, identity in
            try await pool.execute(as: identity, readOnly: true, statement)
        }
    }

    /// Two reads at once on two connections of the same server (`executeConcurrently`).
    func readConcurrently<First: PostgresStatement, Second: PostgresStatement>(
        as identity: PostgresIdentity, for viewer: Viewer?, _ first: First, _ second: Second
    ) async throws -> (First.Output, Second.Output) {
        try await routed(as: identity, for: viewer) { pool, identity in
            try await pool.executeConcurrently(as: identity, first, second)
        }
    }

    private func routed<Output>(
        as identity: PostgresIdentity, for viewer: Viewer?,
        _ run: (PostgresPool, PostgresIdentity) async throws -> Output
    ) async throws -> Output {
        guard let replicas, let replica = replicas.pick() else {
            return try await onPrimary(identity, run)
        }
        var onReplica = identity
        if viewer != nil {
            // On the primary: the viewer's session is checked live there (the identity's
            // check), and their last write's mark read. The replica, which may not have replayed
            // a new session yet, checks only that the write is visible.
            let mark = try await pool.execute(as: identity, readOnly: true, ReplicaQueries.writeMark)
            onReplica.checks = mark.map { [ReplicaQueries.requiringVisible($0)] } ?? []
        }
        do {
            let output = try await run(replica.pool, onReplica)
            metrics.increment("db_reads_total", help: Self.readsHelp, labels: ["server": "replica"])
            return output
        } catch let error as PostgresError where error.sqlState == .replicaBehind {
            metrics.increment("db_replica_behind_total", help: "Reads a replica could not answer yet: the viewer's last write was not replayed there.")
        } catch let error as PostgresError where Self.isTheReplicasFault(error) {
            replicas.failed(replica, error)
        }
        return try await onPrimary(identity, run)
    }

    private func onPrimary<Output>(
        _ identity: PostgresIdentity, _ run: (PostgresPool, PostgresIdentity) async throws -> Output
    ) async throws -> Output {
        let output = try await run(pool, identity)
        if replicas != nil {
            metrics.increment("db_reads_total", help: Self.readsHelp, labels: ["server": "primary"])
        }
        return output
    }

    private static let readsHelp = "Reads that could go to a replica, by the server that answered."

    /// Errors that say nothing about the read, only about the replica: the primary may answer.
    /// A conflict with recovery (replay needed what the query held) is a serialization failure
    /// or a deadlock, which the pool has retried already.
    private static func isTheReplicasFault(_ error: PostgresError) -> Bool {
        error.isConnectionLost || error.isTransient || [.poolTimeout, .poolClosed].contains(error.kind)
    }
}

extension SQLState {
    /// `app.require_visible`: this replica has not replayed the viewer's last write yet.
    static let replicaBehind = SQLState("CH001")
}
