import Foundation
import Postgres

/// A fresh, migrated database in the throwaway cluster that `scripts/test` starts.
struct TestDatabase {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static var adminURL: String {
        ProcessInfo.processInfo.environment["CHIRP_TEST_DATABASE_URL"]
            ?? "postgres://postgres@127.0.0.1:55432/postgres"
    }

    let name: String
    /// Superuser: fixtures and checks that look past row-level security.
    let admin: PostgresConfiguration
    /// The service's own login role, as production uses it.
    let service: PostgresConfiguration

    init() throws {
        name = "chirp_\(UUID().uuidString.prefix(8).lowercased())"
        var admin = try PostgresConfiguration(url: Self.adminURL, applicationName: "chirp-tests")
        let server = try PostgresConnection(configuration: admin)
        try server.unsafeExecuteScript("create database \(name)")
        admin.set("dbname", name)
        let connection = try PostgresConnection(configuration: admin)
        let migrations = try PostgresMigration.load(from: Self.repository.appendingPathComponent("sql/migrations"))
        try PostgresMigrator().migrate(migrations, on: connection)
        var service = admin
        service.set("user", "chirp_service")
        service.set("application_name", "chirp-service-tests")
        self.admin = admin
        self.service = service
    }

    /// A superuser connection to this database.
    func adminConnection() throws -> PostgresConnection {
        try PostgresConnection(configuration: admin)
    }

    /// Runs one statement as superuser and returns its first column of its first row.
    func scalar<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type = T.self) throws -> T {
        try adminConnection().query(query).rows[0].decode(T.self, at: 0)
    }
}
