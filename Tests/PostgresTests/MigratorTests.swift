import Foundation
import Postgres
import Testing

@Suite struct MigratorTests {
    let migrations = [
        PostgresMigration(version: "0001", name: "first", sql: "create table a (id int);"),
        PostgresMigration(version: "0002", name: "second", sql: "create table b (id int); insert into b values (1);"),
    ]

    @Test func appliesEachMigrationOnceEvenFromSeveralInstancesAtOnce() throws {
        let configuration = try TestDatabase.create(prefix: "migrator")
        let applied = Mutexed<[[String]]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let versions = (try? PostgresConnection(configuration: configuration)).flatMap {
                try? PostgresMigrator().migrate(migrations, on: $0)
            }
            applied.withLock { $0.append(versions ?? ["failed"]) }
        }
        let runs = applied.withLock { $0 }
        #expect(runs.filter { $0 == ["0001", "0002"] }.count == 1)
        #expect(runs.filter { $0.isEmpty }.count == 3)
        let connection = try PostgresConnection(configuration: configuration)
        #expect(try connection.query("select count(*) from b").rows[0].decode(Int.self, at: 0) == 1)
        #expect(try connection.query("select count(*) from schema_migrations").rows[0].decode(Int.self, at: 0) == 2)
    }

    @Test func aFailingMigrationLeavesNoTrace() throws {
        let configuration = try TestDatabase.create(prefix: "migrator")
        let connection = try PostgresConnection(configuration: configuration)
        let broken = migrations + [PostgresMigration(version: "0003", name: "broken", sql: "create table c (id int); select 1/0;")]
        #expect(throws: PostgresError.self) { try PostgresMigrator().migrate(broken, on: connection) }
        #expect(try connection.query("select to_regclass('c') is null").rows[0].decode(Bool.self, at: 0))
        #expect(try connection.query("select count(*) from schema_migrations").rows[0].decode(Int.self, at: 0) == 2)
    }

    @Test func anEditedMigrationStopsTheRun() throws {
        let configuration = try TestDatabase.create(prefix: "migrator")
        let connection = try PostgresConnection(configuration: configuration)
        try PostgresMigrator().migrate(migrations, on: connection)
        var edited = migrations
        edited[0].sql = "create table a (id bigint);"
        do {
            try PostgresMigrator().migrate(edited, on: connection)
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
