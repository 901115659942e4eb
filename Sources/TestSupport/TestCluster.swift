import EventLoops
import Foundation
import Postgres

/// The throwaway PostgreSQL cluster that `scripts/test` starts for the whole run.
public enum TestCluster {
    /// A superuser URL for the cluster.
    public static var adminURL: String {
        ProcessInfo.processInfo.environment["CHIRP_TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:55432/postgres"
    }

    /// The repository's root, where `sql/migrations` lives.
    public static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The loop every test pool waits on unless a test gives its own: one thread for the run
    /// rather than one per pool.
    public static let eventLoop: EventLoop = {
        do {
            return try EventLoop(name: "tests")
        } catch {
            fatalError("cannot start the tests' event loop: \(error)")
        }
    }()

    /// The superuser, as an identity for `PostgresPool.execute`.
    public static let superuser = PostgresIdentity(role: "postgres")

    public static func adminConfiguration(database: String = "postgres") throws -> PostgresConfiguration {
        var configuration = try PostgresConfiguration(url: adminURL, applicationName: "chirp-tests")
        configuration.set("dbname", database)
        return configuration
    }

    /// A pool of superuser connections to `database`, waiting on `loop` (by default the one
    /// every test pool shares).
    public static func adminPool(
        database: String = "postgres", _ pool: PostgresPoolConfiguration = .init(maxConnections: 2), loop: EventLoop? = nil
    ) throws -> PostgresPool {
        try PostgresPool(configuration: adminConfiguration(database: database), pool: pool, eventLoop: loop ?? eventLoop)
    }
}
