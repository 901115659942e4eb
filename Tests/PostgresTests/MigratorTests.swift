import Foundation
import Postgres
import TestSupport
import Testing

@Suite struct MigratorTests {
    let migrations = [
        PostgresMigration(version: "0001", name: "first", sql: "create table a (id int);"),
        PostgresMigration(version: "0002", name: "second", sql: "create table b (id int); insert into b values (1);"),
    ]
    let appliedCount = PostgresQuery("select count(*) from schema_migrations").value(Int.self)

    @Test func appliesEachMigrationOnceEvenFromSeveralInstancesAtOnce() async throws {
        let database = try await TestDatabase.empty(prefix: "migrator")
        let pool = try TestCluster.adminPool(database: database.name, .init(maxConnections: 4))
        defer { pool.close() }
        let migrations = migrations
        let runs = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    (try? await pool.withSession { try await PostgresMigrator().migrate(migrations, in: $0) }) ?? ["failed"]
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(runs.filter { $0 == ["0001", "0002"] }.count == 1)
        #expect(runs.filter { $0.isEmpty }.count == 3)
        #expect(try await database.scalar("select count(*) from b", as: Int.self) == 1)
        #expect(try await database.execute(appliedCount) == 2)
    }

    @Test func aFailingMigrationLeavesNoTrace() async throws {
        let database = try await TestDatabase.empty(prefix: "migrator")
        let broken = migrations + [PostgresMigration(version: "0003", name: "broken", sql: "create table c (id int); select 1/0;")]
        await #expect(throws: PostgresError.self) {
            try await database.adminPool.withSession { try await PostgresMigrator().migrate(broken, in: $0) }
        }
        #expect(try await database.scalar("select to_regclass('c') is null", as: Bool.self))
        #expect(try await database.execute(appliedCount) == 2)
    }

    @Test func anEditedMigrationStopsTheRun() async throws {
        let database = try await TestDatabase.empty(prefix: "migrator")
        try await database.adminPool.withSession { try await PostgresMigrator().migrate(migrations, in: $0) }
        var edited = migrations
        edited[0].sql = "create table a (id bigint);"
        do {
            try await database.adminPool.withSession { try await PostgresMigrator().migrate(edited, in: $0) }
            Issue.record("an edited migration was accepted")
        } catch let error as PostgresError {
            #expect(error.message.contains("edited"))
        }
    }

    @Test func loadsFilesInVersionOrderAndRejectsBadNames() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("migrations-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "select 2;".write(to: folder.appendingPathComponent("0002_b.sql"), atomically: true, encoding: .utf8)
        try "select 1;".write(to: folder.appendingPathComponent("0001_a.sql"), atomically: true, encoding: .utf8)
        let loaded = try PostgresMigration.load(from: folder)
        #expect(loaded.map(\.version) == ["0001", "0002"])
        #expect(loaded.map(\.name) == ["a", "b"])
        try "select 3;".write(to: folder.appendingPathComponent("three.sql"), atomically: true, encoding: .utf8)
        #expect(throws: PostgresError.self) { try PostgresMigration.load(from: folder) }
    }
}
