import Chirp
import Foundation
import HTTP
import Observability
import Postgres

/// Reads the service's settings from environment variables and says plainly which one is
/// wrong and why, instead of starting with a surprise.
struct Environment {
    let values: [String: String]

    init(_ values: [String: String] = ProcessInfo.processInfo.environment) {
        self.values = values
    }

    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    func string(_ name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }

    func required(_ name: String, _ why: String) throws -> String {
        guard let value = string(name) else { throw Invalid(description: "\(name) is not set: \(why)") }
        return value
    }

    func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text = string(name) else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw Invalid(description: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound) (got \"\(text)\")")
        }
        return value
    }

    func database(_ name: String) throws -> PostgresConfiguration {
        let url = try required(name, "set it to a postgres:// URL")
        do {
            return try PostgresConfiguration(url: url)
        } catch let error as PostgresError {
            throw Invalid(description: "\(name) is not a usable connection string: \(error.message)")
        }
    }

    /// `0` (the default when unset) or `1`.
    func flag(_ name: String) throws -> Bool {
        switch string(name) ?? "0" {
        case "0": false
        case "1": true
        case let other: throw Invalid(description: "\(name) must be 0 or 1 (got \"\(other)\")")
        }
    }

    /// `TRUSTED_PROXIES`: addresses and CIDR ranges, comma-separated.
    func trustedProxies() throws -> TrustedProxies {
        guard let list = string("TRUSTED_PROXIES") else { return .none }
        guard let proxies = TrustedProxies(list: list) else {
            throw Invalid(description: "TRUSTED_PROXIES must list IP addresses or CIDR ranges, comma-separated (got \"\(list)\")")
        }
        return proxies
    }

    /// `CORS_ALLOWED_ORIGINS`: web origins, comma-separated (`*` for any); none when unset.
    func corsPolicy() throws -> CORSPolicy? {
        guard let list = string("CORS_ALLOWED_ORIGINS") else { return nil }
        let origins = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !origins.isEmpty, let policy = CORSPolicy(allowedOrigins: origins) else {
            throw Invalid(description: """
                CORS_ALLOWED_ORIGINS must list origins such as https://app.example.com (scheme, host and port, \
                lowercase, no path), comma-separated, or * (got "\(list)")
                """)
        }
        return policy
    }

    /// The service's connection: a login that bypasses row-level security is refused unless
    /// `CHIRP_ALLOW_BYPASSRLS=1` says otherwise.
    func serviceDatabase() throws -> PostgresConfiguration {
        var configuration = try database("DATABASE_URL")
        configuration.allowsRowSecurityBypass = try flag("CHIRP_ALLOW_BYPASSRLS")
        return configuration
    }

    /// `DATABASE_REPLICA_URLS`: streaming replicas' URLs, comma-separated (a comma inside a
    /// URL, between the hosts of a multi-host URL, stays with it).
    func replicaDatabases(allowingBypass: Bool) throws -> [PostgresConfiguration] {
        guard let list = string("DATABASE_REPLICA_URLS") else { return [] }
        var urls: [String] = []
        for piece in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !piece.isEmpty {
            if piece.hasPrefix("postgres://") || piece.hasPrefix("postgresql://") || urls.isEmpty {
                urls.append(piece)
            } else {
                urls[urls.count - 1] += "," + piece
            }
        }
        return try urls.map { url in
            do {
                var configuration = try PostgresConfiguration(url: url)
                configuration.allowsRowSecurityBypass = allowingBypass
                return configuration
            } catch let error as PostgresError {
                throw Invalid(description: "DATABASE_REPLICA_URLS holds an unusable connection string: \(error.message)")
            }
        }
    }

    /// The URL migrations and seeding connect with: an owner of the database, which the
    /// service's own login role is not (a superuser is welcome here).
    func migrationDatabase() throws -> PostgresConfiguration {
        var configuration = try database(string("MIGRATION_DATABASE_URL") != nil ? "MIGRATION_DATABASE_URL" : "DATABASE_URL")
        configuration.allowsRowSecurityBypass = true
        return configuration
    }

    /// Runs `body` in a session on the migration database: one connection, as an owner.
    func migrationSession<T>(_ body: (PostgresSession) async throws -> T) async throws -> T {
        let pool = try PostgresPool(configuration: try migrationDatabase(), pool: PostgresPoolConfiguration(maxConnections: 1))
        defer { pool.close() }
        return try await pool.withSession(body)
    }

    var migrationsDirectory: URL {
        URL(fileURLWithPath: string("MIGRATIONS_DIR") ?? "sql/migrations")
    }

    func logLevel() throws -> Logger.Level {
        switch string("LOG_LEVEL")?.lowercased() ?? "info" {
        case "debug": .debug
        case "info": .info
        case "warning": .warning
        case "error": .error
        case let other: throw Invalid(description: "LOG_LEVEL must be debug, info, warning or error (got \"\(other)\")")
        }
    }

    /// What a secret must at least carry by `estimatedEntropyBits`: 32 random hex digits carry
    /// about 120, a repeated word far less.
    static let minimumSecretBits = 100

    /// The secret's length times the Shannon entropy of its characters' frequencies: a cheap
    /// upper estimate of what it carries, which catches a word repeated to length or a single
    /// character. It cannot tell a random string from a famous one.
    static func estimatedEntropyBits(_ secret: String) -> Int {
        let bytes = Array(secret.utf8)
        var counts: [UInt8: Int] = [:]
        for byte in bytes { counts[byte, default: 0] += 1 }
        let total = Double(bytes.count)
        let perByte = counts.values.reduce(0.0) { sum, count in
            let p = Double(count) / total
            return sum - p * log2(p)
        }
        return Int(perByte * total)
    }

    func serviceConfiguration() throws -> ChirpConfiguration {
        let secret = try required("JWT_SECRET", "access tokens are signed with it (32 bytes or more)")
        guard secret.utf8.count >= 32 else {
            throw Invalid(description: "JWT_SECRET must be at least 32 bytes (got \(secret.utf8.count))")
        }
        guard !secret.lowercased().hasPrefix("change-me") else {
            throw Invalid(description: "JWT_SECRET is the placeholder of .env.example: generate one, e.g. with openssl rand -hex 32")
        }
        let bits = Self.estimatedEntropyBits(secret)
        guard bits >= Self.minimumSecretBits else {
            throw Invalid(description: "JWT_SECRET looks guessable (about \(bits) bits in its characters' spread, under \(Self.minimumSecretBits)): generate one, e.g. with openssl rand -hex 32")
        }
        var http = HTTPServerConfiguration()
        http.host = string("HOST") ?? "0.0.0.0"
        http.port = try integer("PORT", default: 8080, in: 1...65_535)
        http.maxBodyBytes = try integer("MAX_BODY_BYTES", default: 64 * 1024, in: 1_024...16 * 1024 * 1024)
        http.connectionLimit = try integer("MAX_CONNECTIONS", default: 1_024, in: 1...65_536)
        http.perIPConnectionLimit = try integer("MAX_CONNECTIONS_PER_IP", default: 256, in: 0...65_536)
        http.eventLoops = try integer("EVENT_LOOPS", default: http.eventLoops, in: 1...256)
        http.trustedProxies = try trustedProxies()
        http.proxyProtocol = try flag("PROXY_PROTOCOL")
        var metricsHTTP: HTTPServerConfiguration?
        if string("METRICS_PORT") != nil {
            var metrics = HTTPServerConfiguration()
            metrics.host = string("METRICS_HOST") ?? http.host
            metrics.port = try integer("METRICS_PORT", default: 0, in: 1...65_535)
            metrics.connectionLimit = 64
            metrics.eventLoops = 1
            guard metrics.port != http.port || metrics.host != http.host else {
                throw Invalid(description: "METRICS_PORT must differ from PORT: it keeps /metrics off the service's port")
            }
            metricsHTTP = metrics
        }
        if http.proxyProtocol && http.trustedProxies.isEmpty {
            throw Invalid(description: "PROXY_PROTOCOL=1 needs TRUSTED_PROXIES: only a listed proxy may say who a client is")
        }
        let pool = PostgresPoolConfiguration(
            maxConnections: try integer("DATABASE_POOL_SIZE", default: PostgresPoolConfiguration.defaultMaxConnections, in: 2...1_000),
            leaseTimeout: .milliseconds(try integer("DATABASE_POOL_TIMEOUT_MS", default: 2_000, in: 1...60_000)))
        var configuration = ChirpConfiguration(
            database: try serviceDatabase(), pool: pool, http: http,
            jwtSecret: Array(secret.utf8), logLevel: try logLevel())
        if string("DATABASE_AUTH_URL") != nil {
            configuration.authDatabase = try database("DATABASE_AUTH_URL")
        }
        configuration.authDatabase.allowsRowSecurityBypass = configuration.database.allowsRowSecurityBypass
        configuration.authPool = PostgresPoolConfiguration(
            maxConnections: try integer("DATABASE_AUTH_POOL_SIZE", default: configuration.authPool.maxConnections, in: 1...1_000),
            leaseTimeout: pool.leaseTimeout)
        configuration.metricsHTTP = metricsHTTP
        configuration.openAPIPath = string("OPENAPI_PATH") ?? configuration.openAPIPath
        configuration.cors = try corsPolicy()
        configuration.replicas = try replicaDatabases(allowingBypass: configuration.database.allowsRowSecurityBypass)
        configuration.shutdownDelay = .milliseconds(try integer("SHUTDOWN_DELAY_MS", default: 0, in: 0...600_000))
        configuration.replicaMaxLag = .milliseconds(try integer(
            "DATABASE_REPLICA_MAX_LAG_MS", default: Int(configuration.replicaMaxLag / .milliseconds(1)), in: 1...3_600_000))
        var limits = configuration.rateLimits
        limits.signupPerAddress.limit = try integer("RATE_LIMIT_SIGNUPS_PER_ADDRESS", default: limits.signupPerAddress.limit, in: 1...1_000_000)
        limits.loginPerAddress.limit = try integer("RATE_LIMIT_LOGINS_PER_ADDRESS", default: limits.loginPerAddress.limit, in: 1...1_000_000)
        limits.loginFailuresPerUsernameAndAddress.limit = try integer(
            "RATE_LIMIT_LOGIN_FAILURES", default: limits.loginFailuresPerUsernameAndAddress.limit, in: 1...1_000_000)
        limits.loginFailuresPerUsername.limit = try integer(
            "RATE_LIMIT_LOGIN_FAILURES_PER_USERNAME", default: limits.loginFailuresPerUsername.limit, in: 1...1_000_000)
        limits.refreshPerAddress.limit = try integer("RATE_LIMIT_REFRESHES_PER_ADDRESS", default: limits.refreshPerAddress.limit, in: 1...1_000_000)
        configuration.rateLimits = limits
        var search = configuration.search
        search.perAddress.limit = try integer("RATE_LIMIT_SEARCHES_PER_ADDRESS", default: search.perAddress.limit, in: 1...1_000_000)
        search.statementTimeout = .milliseconds(try integer(
            "SEARCH_STATEMENT_TIMEOUT_MS", default: Int(search.statementTimeout / .milliseconds(1)), in: 1...60_000))
        configuration.search = search
        return configuration
    }
}
