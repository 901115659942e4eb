import Foundation
import HTTP
import Observability
import Postgres

/// Everything the service needs to run, already validated.
public struct ChirpConfiguration: Sendable {
    public var database: PostgresConfiguration
    /// Streaming replicas of `database` that reads tolerating lag may use (`Replicas`).
    public var replicas: [PostgresConfiguration] = []
    /// A replica further behind its primary than this is skipped until it catches up.
    public var replicaMaxLag: Duration = .seconds(1)
    /// On SIGTERM, how long `/readyz` answers 503 before the server stops accepting: long
    /// enough for a load balancer's health checks to take the instance out (zero without one).
    public var shutdownDelay: Duration = .zero
    /// Each server's pool: the primary's and every replica's.
    public var pool: PostgresPoolConfiguration
    public var http: HTTPServerConfiguration
    /// HMAC key for access tokens, at least 32 bytes.
    public var jwtSecret: [UInt8]
    public var logLevel: Logger.Level
    public var rateLimits = RateLimits()
    public var search = SearchLimits()
    public var passwordHashing = PasswordHasher.Parameters.owaspMinimum
    /// The OpenAPI document served at `GET /openapi.yaml`, read once at start-up; relative to
    /// the working directory. Without the file the service still starts and answers 404 there.
    public var openAPIPath = "openapi.yaml"

    public init(
        database: PostgresConfiguration, pool: PostgresPoolConfiguration = .init(),
        http: HTTPServerConfiguration = .init(), jwtSecret: [UInt8], logLevel: Logger.Level = .info
    ) {
        self.database = database
        self.pool = pool
        self.http = http
        self.jwtSecret = jwtSecret
        self.logLevel = logLevel
    }
}
