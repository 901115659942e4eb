import Foundation
import HTTP
import Observability
import Postgres

/// Everything the service needs to run, already validated.
public struct ChirpConfiguration: Sendable {
    /// The service's login (`chirp_service`): every request but sign-in's.
    public var database: PostgresConfiguration
    /// The auth login (`chirp_auth_service`), the only one that can become `chirp_auth` and so
    /// reach credentials and refresh tokens: sign-up, login, tokens, password changes and the
    /// purge. By default `database` with the user changed and no password (libpq's password
    /// file or `PGPASSWORD` may hold one): the two logins must not share a secret.
    public var authDatabase: PostgresConfiguration
    /// The auth login's pool: sign-ins take turns on a few connections, and spend most of
    /// their time hashing with none held.
    public var authPool = PostgresPoolConfiguration(maxConnections: 4)
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
    /// Where `/metrics` is served instead of `http`'s port, when set: a port of its own that an
    /// operator keeps off the published one, so the service's internals are not public.
    public var metricsHTTP: HTTPServerConfiguration?
    /// HMAC key for access tokens, at least 32 bytes.
    public var jwtSecret: [UInt8]
    public var logLevel: Logger.Level
    public var rateLimits = RateLimits()
    public var search = SearchLimits()
    public var passwordHashing = PasswordHasher.Parameters.owaspMinimum
    /// The OpenAPI document served at `GET /openapi.yaml`, read once at start-up; relative to
    /// the working directory. Without the file the service still starts and answers 404 there.
    public var openAPIPath = "openapi.yaml"
    /// Web origins that may call the API from a browser (`CORS_ALLOWED_ORIGINS`); none when nil.
    public var cors: CORSPolicy?

    public init(
        database: PostgresConfiguration, pool: PostgresPoolConfiguration = .init(),
        http: HTTPServerConfiguration = .init(), jwtSecret: [UInt8], logLevel: Logger.Level = .info
    ) {
        self.database = database
        authDatabase = Self.authLogin(of: database)
        self.pool = pool
        self.http = http
        self.jwtSecret = jwtSecret
        self.logLevel = logLevel
    }

    public static let authLoginRole = "chirp_auth_service"

    /// `database`'s server and options, as the auth login, without the service's password.
    public static func authLogin(of database: PostgresConfiguration) -> PostgresConfiguration {
        var auth = database
        auth.set("user", authLoginRole)
        auth.remove("password")
        return auth
    }
}
