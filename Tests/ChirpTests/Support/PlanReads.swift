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
