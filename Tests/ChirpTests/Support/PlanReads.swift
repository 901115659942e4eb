@testable import Chirp
import Foundation
import Postgres

extension TestService {
    /// What `query` reads, run for real as `identity` would run it (a prepared statement,
    /// with its bound values): the rows the scans of each index returned, for every index
    /// scanned at all, and how many sequential scans ran. As superuser, so that a test can
    /// look at any role's plan.
    func planReads(of query: PostgresQuery, as identity: PostgresIdentity) async throws -> PlanReads {
        let plan = try await database.adminPool.withTransaction(as: identity, readOnly: true) { transaction in
            try await transaction.execute(PostgresQuery(sql: "prepare read_plan as " + query.sql))
            let plan = try await transaction.execute(PostgresQuery(
                sql: "explain (analyze, timing off, format json) execute read_plan(\(query.literalArguments))"
            ).value(PostgresJSON.self))
            try await transaction.execute(PostgresQuery(sql: "deallocate read_plan"))
            return plan
        }
        guard let document = try JSONSerialization.jsonObject(with: Data(plan.text.utf8)) as? [[String: Any]],
              let root = document.first?["Plan"] as? [String: Any]
        else { throw TestClient.Failure(description: "no plan in \(plan.text)") }
        var reads = PlanReads()
        reads.add(root)
        return reads
    }
}

extension TestService {
    /// What `query` reads, counted by the server rather than read from its plan, so that the
    /// statements of the functions it calls count too (`app.home_feed`): the entries each index
    /// returned (`pg_stat_get_xact_tuples_returned`) and the tables whose sequential scans read
    /// a row, the second time it runs in a transaction as `identity` (the first plans it, and
    /// planning reads the ends of indexes to estimate joins, once per connection in the
    /// service). Index entries returned include those a filter then dropped, and those of dead
    /// row versions not yet vacuumed, which a plan's rows do not.
    func statementReads(of query: PostgresQuery, as identity: PostgresIdentity) async throws -> PlanReads {
        // The counters hold this backend's counts not yet sent to the statistics, from earlier
        // transactions too: what `query` read is the difference across it.
        let counters = PostgresQuery(sql: """
            select c.relname::text, c.relkind = 'i', pg_catalog.pg_stat_get_xact_tuples_returned(c.oid),
                   pg_catalog.pg_stat_get_xact_numscans(c.oid)
            from pg_catalog.pg_class c
            where c.relnamespace = 'public'::regnamespace and c.relkind in ('i', 'r')
            """).rows { try $0.decode((String, Bool, Int64, Int64).self) }
        let execute = PostgresQuery(sql: "execute read_statement(\(query.literalArguments))")
        let (before, after) = try await database.adminPool.withTransaction(as: identity, readOnly: true) { transaction in
            _ = try await transaction.execute(PostgresQuery(sql: "prepare read_statement as " + query.sql))
            _ = try await transaction.execute(execute)
            let before = try await transaction.execute(counters)
            _ = try await transaction.execute(execute)
            let after = try await transaction.execute(counters)
            _ = try await transaction.execute(PostgresQuery(sql: "deallocate read_statement"))
            return (before, after)
        }
        var start: [String: (returned: Int64, scans: Int64)] = [:]
        for (name, _, returned, scans) in before { start[name] = (returned, scans) }
        var reads = PlanReads()
        for (name, isIndex, returned, scans) in after {
            let (returnedBefore, scansBefore) = start[name] ?? (0, 0)
            if isIndex, returned > returnedBefore {
                reads.rows[name] = Int(returned - returnedBefore)
            } else if !isIndex, scans > scansBefore, returned > returnedBefore {
                // A table's tuples returned are those its sequential scans read.
                reads.sequentialScans += 1
            }
        }
        return reads
    }
}

extension PostgresQuery {
    /// The bound values as SQL literals, for `execute name(…)` of this statement prepared.
    fileprivate var literalArguments: String {
        bindings.map { $0.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "null" }.joined(separator: ", ")
    }
}

/// Rows read by index and returned by functions, and sequential scans, summed over a plan's nodes (`planReads(of:as:)`).
struct PlanReads: CustomStringConvertible {
    var rows: [String: Int] = [:]
    /// Rows returned by each function scanned (what a function reads inside is not in the plan).
    var functionRows: [String: Int] = [:]
    /// Sequential scans that read a row: one of a table with none (an unused `mutes`, whose
    /// scan the planner rightly prefers while it is empty) reads nothing.
    var sequentialScans = 0

    mutating func add(_ node: [String: Any]) {
        let loops = node["Actual Loops"] as? Int ?? 0
        if let index = node["Index Name"] as? String, loops > 0 {
            rows[index, default: 0] += (node["Actual Rows"] as? Int ?? 0) * loops
        }
        if let function = node["Function Name"] as? String, loops > 0 {
            functionRows[function, default: 0] += (node["Actual Rows"] as? Int ?? 0) * loops
        }
        let read = (node["Actual Rows"] as? Int ?? 0) + (node["Rows Removed by Filter"] as? Int ?? 0)
        if node["Node Type"] as? String == "Seq Scan", loops > 0, read > 0 { sequentialScans += 1 }
        for child in node["Plans"] as? [[String: Any]] ?? [] { add(child) }
    }

    var description: String { "rows by index \(rows), by function \(functionRows), sequential scans \(sequentialScans)" }
}
