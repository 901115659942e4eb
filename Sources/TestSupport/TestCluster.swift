import EventLoops
import Foundation
import Postgres

/// The throwaway PostgreSQL cluster that `scripts/test` starts for the whole run.
public enum TestCluster {
    /// A superuser URL for the cluster.
    public static var adminURL: String {
        ProcessInfo.processInfo.environment["CHIRP_TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:55432/postgres"
    }

    /// PgBouncer in transaction mode in front of the cluster (`scripts/pgbouncer`), which
    /// `scripts/test` starts for the run.
    public static var poolerURL: String? {
        ProcessInfo.processInfo.environment["CHIRP_TEST_POOLER_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether the service under test connects through the pooler rather than directly:
    /// `scripts/test` runs the service's suites both ways.
    public static var serviceGoesThroughPooler: Bool {
        ProcessInfo.processInfo.environment["CHIRP_TEST_SERVICE_THROUGH_POOLER"] == "1"
    }

    /// Where the pooler listens, as connection keywords over `configuration`: the same
    /// database and login, another door.
    public static func throughPooler(_ configuration: PostgresConfiguration) throws -> PostgresConfiguration {
        guard let poolerURL else {
            throw PostgresError(.client, message: "CHIRP_TEST_POOLER_URL is not set: scripts/test starts PgBouncer and sets it")
        }
        let pooler = try PostgresConfiguration(url: poolerURL)
        var routed = configuration
        for key in ["host", "hostaddr", "port"] {
            if let value = pooler.setting(key) { routed.set(key, value) }
        }
        return routed
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
        configuration.allowsRowSecurityBypass = true
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
