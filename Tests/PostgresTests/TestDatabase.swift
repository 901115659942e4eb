import Foundation
import Postgres

/// A fresh database per test suite in the throwaway cluster that `scripts/test` starts.
enum TestDatabase {
    /// A superuser URL for the test cluster.
    static var adminURL: String {
        ProcessInfo.processInfo.environment["CHIRP_TEST_DATABASE_URL"]
            ?? "postgres://postgres@127.0.0.1:55432/postgres"
    }

    static func adminConfiguration(database: String = "postgres") throws -> PostgresConfiguration {
        var configuration = try PostgresConfiguration(url: adminURL, applicationName: "chirp-tests")
        configuration.set("dbname", database)
        return configuration
    }

    /// Creates an empty database and returns a configuration that connects to it.
    static func create(prefix: String = "wrapper") throws -> PostgresConfiguration {
        let name = "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try PostgresConnection(configuration: adminConfiguration())
        try admin.unsafeExecuteScript("create database \(name)")
        return try adminConfiguration(database: name)
    }
}
