@testable import Chirp
import Foundation
import Postgres

extension TestService {
    /// What `query` reads, run for real as `identity` would run it (a prepared statement,
    /// with its bound values): the rows the scans of each index returned, for every index
    /// scanned at all, and how many sequential scans ran. As superuser, so that a test can
    /// look at any role's plan.
    func planReads(of query: PostgresQuery, as identity: PostgresIdentity) async throws -> PlanReads {
        let literals = query.bindings.map { $0.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "null" }
        let plan = try await database.adminPool.withTransaction(as: identity, readOnly: true) { transaction in
            try await transaction.execute(PostgresQuery(sql: "prepare read_plan as " + query.sql))
            let plan = try await transaction.execute(PostgresQuery(
                sql: "explain (analyze, timing off, format json) execute read_plan(\(literals.joined(separator: ", ")))"
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
    /// returned (`pg_stat_get_xact_tuples_returned` of each index) and the tables whose
    /// sequential scans read a row, in a transaction as `identity`, the second time it runs there. Index entries returned
    /// include those a filter then dropped, and those of dead row versions not yet vacuumed,
    /// which a plan's rows do not.
    func statementReads(of query: PostgresQuery, as identity: PostgresIdentity) async throws -> PlanReads {
        // The counters hold this backend's counts not yet sent to the statistics, from earlier
        // transactions too: what `query` read is the difference across it.
        let counters = PostgresQuery(sql: """
            select c.relname::text, pg_catalog.pg_stat_get_xact_tuples_returned(c.oid), pg_catalog.pg_stat_get_xact_numscans(c.oid)
            from pg_catalog.pg_class c
            where c.relnamespace = 'public'::regnamespace and c.relkind in ('i', 'r')
            """).rows { try $0.decode((String, Int64, Int64).self) }
        let literals = query.bindings.map { $0.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "null" }
        let execute = PostgresQuery(sql: "execute read_statement(\(literals.joined(separator: ", ")))")
        return try await database.adminPool.withTransaction(as: identity, readOnly: true) { transaction in
            // Prepared, and run once to plan it: planning reads the ends of indexes to estimate
            // joins, which the service pays once per connection, not per request.
            _ = try await transaction.execute(PostgresQuery(sql: "prepare read_statement as " + query.sql))
            _ = try await transaction.execute(execute)
            let before = try await transaction.execute(counters)
            _ = try await transaction.execute(execute)
            let after = try await transaction.execute(counters)
            _ = try await transaction.execute(PostgresQuery(sql: "deallocate read_statement"))
            let kinds = try await transaction.execute(PostgresQuery(sql: """
                select c.relname::text from pg_catalog.pg_class c where c.relnamespace = 'public'::regnamespace and c.relkind = 'i'
                """).rows { try $0.decode(String.self, at: 0) })
            let indexes = Set(kinds)
            var start: [String: (Int64, Int64)] = [:]
            for (name, returned, scans) in before { start[name] = (returned, scans) }
            var reads = PlanReads()
            for (name, returned, scans) in after {
                let (returnedBefore, scansBefore) = start[name] ?? (0, 0)
                if indexes.contains(name) {
                    if returned > returnedBefore { reads.rows[name] = Int(returned - returnedBefore) }
                } else if scans > scansBefore, returned > returnedBefore {
                    // A table's tuples returned are those its sequential scans read.
                    reads.sequentialScans += 1
                }
            }
            return reads
        }
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
