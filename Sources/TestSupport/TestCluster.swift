import EventLoops
import Foundation
import Postgres

/// The throwaway PostgreSQL cluster that `scripts/test` starts for the whole run.
public enum TestCluster {
    /// A superuser URL for the cluster.
    public static var adminURL: String {
        ProcessInfo.processInfo.environment["CHIRP_TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:55432/postgres"
    }

    /// Whether the service under test connects through the pooler rather than directly:
    /// `scripts/test` runs the service's suites both ways.
    public static var serviceGoesThroughPooler: Bool {
        ProcessInfo.processInfo.environment["CHIRP_TEST_SERVICE_THROUGH_POOLER"] == "1"
    }

    /// Where the pooler listens, as connection keywords over `configuration`: the same
    /// database and login, another door.
    public static func throughPooler(_ configuration: PostgresConfiguration) throws -> PostgresConfiguration {
        try routed(configuration, to: "CHIRP_TEST_POOLER_URL", "PgBouncer")
    }

    /// The same database and login on the streaming replica that keeps up with the cluster.
    public static func onReplica(_ configuration: PostgresConfiguration) throws -> PostgresConfiguration {
        try routed(configuration, to: "CHIRP_TEST_REPLICA_URL", "a streaming replica")
    }

    /// The same database and login on the streaming replica that replays 2 s late.
    public static func onDelayedReplica(_ configuration: PostgresConfiguration) throws -> PostgresConfiguration {
        try routed(configuration, to: "CHIRP_TEST_DELAYED_REPLICA_URL", "a delayed streaming replica")
    }

    /// The replica's data folder, for `scripts/pg stop` and `start`.
    public static var replicaFolder: String? {
        ProcessInfo.processInfo.environment["CHIRP_TEST_REPLICA_FOLDER"].flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func routed(_ configuration: PostgresConfiguration, to variable: String, _ what: String) throws -> PostgresConfiguration {
        guard let url = ProcessInfo.processInfo.environment[variable], !url.isEmpty else {
            throw PostgresError(.client, message: "\(variable) is not set: scripts/test starts \(what) and sets it")
        }
        let door = try PostgresConfiguration(url: url)
        var routed = configuration
        for key in ["host", "hostaddr", "port"] {
            if let value = door.setting(key) { routed.set(key, value) }
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

    /// A second cluster, with two streaming replicas of its own (`onReplica`,
    /// `onDelayedReplica`), kept apart so that the other suites' load (every test database
    /// they create is written to the WAL in full) does not hold its replicas seconds behind.
    public static var replicatedURL: String {
        get throws {
            guard let url = ProcessInfo.processInfo.environment["CHIRP_TEST_REPLICATED_URL"], !url.isEmpty else {
                throw PostgresError(.client, message: "CHIRP_TEST_REPLICATED_URL is not set: scripts/test starts the replicated cluster")
            }
            return url
        }
    }

    public static func adminConfiguration(database: String = "postgres", cluster: String? = nil) throws -> PostgresConfiguration {
        var configuration = try PostgresConfiguration(url: cluster ?? adminURL, applicationName: "chirp-tests")
        configuration.allowsRowSecurityBypass = true
        configuration.set("dbname", database)
        return configuration
    }

    /// A pool of superuser connections to `database`, waiting on `loop` (by default the one
    /// every test pool shares).
    public static func adminPool(
        database: String = "postgres", cluster: String? = nil, _ pool: PostgresPoolConfiguration = .init(maxConnections: 2),
        loop: EventLoop? = nil
    ) throws -> PostgresPool {
        try PostgresPool(configuration: adminConfiguration(database: database, cluster: cluster), pool: pool, eventLoop: loop ?? eventLoop)
    }
}
