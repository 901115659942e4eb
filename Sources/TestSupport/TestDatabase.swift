import Foundation
import Postgres

/// A fresh database of its own in the test cluster, empty or migrated, with a superuser pool
/// for fixtures and for checks that look past row-level security.
public final class TestDatabase: Sendable {
    public let name: String
    /// Superuser connections to this database.
    public let admin: PostgresConfiguration
    public let adminPool: PostgresPool
    /// The cluster's superuser URL, when not the main test cluster's.
    let cluster: String?

    private init(name: String, cluster: String?) throws {
        self.name = name
        self.cluster = cluster
        admin = try TestCluster.adminConfiguration(database: name, cluster: cluster)
        adminPool = try TestCluster.adminPool(database: name, cluster: cluster)
    }

    deinit { adminPool.close() }

    /// An empty database named after `prefix`, in the main test cluster or in `cluster`.
    public static func empty(prefix: String = "wrapper", cluster: String? = nil) async throws -> TestDatabase {
        let name = "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
        let server = try TestCluster.adminPool(cluster: cluster)
        defer { server.close() }
        try await server.withSession { try await $0.unsafeExecuteScript("create database \(name)") }
        return try TestDatabase(name: name, cluster: cluster)
    }

    /// A database with Chirp's schema: a copy of a database that every migration in
    /// `sql/migrations` was applied to once per cluster and test run (`MigratedTemplates`).
    public static func migrated(cluster: String? = nil) async throws -> TestDatabase {
        let template = try await MigratedTemplates.shared.name(in: cluster)
        let name = "chirp_\(UUID().uuidString.prefix(8).lowercased())"
        let server = try TestCluster.adminPool(cluster: cluster)
        defer { server.close() }
        try await server.withSession { try await $0.unsafeExecuteScript("create database \(name) template \(template)") }
        return try TestDatabase(name: name, cluster: cluster)
    }

    /// A database with every migration applied by the migrator itself.
    static func migratedInPlace(prefix: String, cluster: String?) async throws -> TestDatabase {
        let database = try await empty(prefix: prefix, cluster: cluster)
        let migrations = try PostgresMigration.load(from: TestCluster.repository.appendingPathComponent("sql/migrations"))
        try await database.adminPool.withSession { try await PostgresMigrator().migrate(migrations, in: $0) }
        return database
    }

    /// The service's own login role, as production connects: directly, or through the
    /// pooler when the run says so (`TestCluster.serviceGoesThroughPooler`).
    public var service: PostgresConfiguration {
        get throws {
            var service = admin
            service.set("user", "chirp_service")
            service.allowsRowSecurityBypass = false
            service.set("application_name", "chirp-service-tests")
            // The pooler stands in front of the main cluster only.
            return TestCluster.serviceGoesThroughPooler && cluster == nil ? try TestCluster.throughPooler(service) : service
        }
    }

    /// Runs statements as superuser, in one transaction.
    @discardableResult
    public func execute<each Statement: PostgresStatement>(
        _ statements: repeat each Statement
    ) async throws -> (repeat (each Statement).Output) {
        try await adminPool.execute(as: TestCluster.superuser, repeat each statements)
    }

    @discardableResult
    public func execute<Statement: PostgresStatement>(_ statement: Statement) async throws -> Statement.Output {
        try await adminPool.execute(as: TestCluster.superuser, statement)
    }

    /// Runs one statement as superuser; for fixtures written as literals.
    @discardableResult
    public func execute(_ query: PostgresQuery) async throws -> PostgresResult {
        try await adminPool.execute(as: TestCluster.superuser, query)
    }

    /// The first column of the one row a statement returns, as superuser.
    public func scalar<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type = T.self) async throws -> T {
        try await execute(query.value(T.self))
    }
}
