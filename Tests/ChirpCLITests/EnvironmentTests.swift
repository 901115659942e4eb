@testable import ChirpCLI
import Chirp
import HTTP
import Postgres
import Testing

/// `chirp serve` reads its settings from the environment: each wrong value stops it with a
/// message naming the variable, and each right one reaches the service's configuration.
@Suite struct EnvironmentTests {
    static let minimal = [
        "DATABASE_URL": "postgres://chirp_service@db.internal:5432/chirp",
        "JWT_SECRET": "4f1c9a7e2b8d0c3f6a5e9b1d7c2f8a0e",
    ]

    func configuration(_ extra: [String: String]) throws -> ChirpConfiguration {
        try Environment(Self.minimal.merging(extra) { $1 }).serviceConfiguration()
    }

    func refusal(_ extra: [String: String]) -> String? {
        do {
            _ = try configuration(extra)
            return nil
        } catch {
            return String(describing: error)
        }
    }

    @Test func theMinimumServesWithTheDefaults() throws {
        let configuration = try configuration([:])
        #expect(configuration.database.setting("host") == "db.internal")
        #expect(!configuration.database.allowsRowSecurityBypass)
        #expect(configuration.replicas.isEmpty)
        #expect(configuration.shutdownDelay == .zero)
        #expect(configuration.http.port == 8080)
        #expect(configuration.http.trustedProxies.isEmpty)
        #expect(!configuration.http.proxyProtocol)
    }

    /// Browsers are let in only from the origins listed; anything that is not an origin is
    /// refused by name rather than silently never matching.
    @Test func corsOriginsAreListedExactlyOrRefused() throws {
        #expect(try configuration([:]).cors == nil)
        let listed = try #require(try configuration(["CORS_ALLOWED_ORIGINS": "https://app.example.com, http://localhost:3000"]).cors)
        #expect(listed.allowedOrigins == ["https://app.example.com", "http://localhost:3000"])
        #expect(listed.allows("http://localhost:3000") && !listed.allows("https://evil.example"))
        #expect(try configuration(["CORS_ALLOWED_ORIGINS": "*"]).cors?.allows("https://anyone.example") == true)
        for wrong in ["https://app.example.com/", "app.example.com", "HTTPS://APP.EXAMPLE.COM", "https://a.example/path", "ftp://a.example", ","] {
            #expect(refusal(["CORS_ALLOWED_ORIGINS": wrong])?.contains("CORS_ALLOWED_ORIGINS") == true, "\(wrong)")
        }
    }

    /// The auth login is its own role, and by default shares no secret with the service's.
    @Test func theAuthLoginIsDerivedWithoutThePasswordOrGivenOutright() throws {
        let derived = try configuration(["DATABASE_URL": "postgres://chirp_service:s3cret@db.internal:5433/chirp"]).authDatabase
        #expect(derived.setting("user") == "chirp_auth_service")
        #expect(derived.setting("password") == nil)
        #expect(derived.setting("host") == "db.internal" && derived.setting("port") == "5433" && derived.setting("dbname") == "chirp")
        let given = try configuration([
            "DATABASE_AUTH_URL": "postgres://chirp_auth_service:other@pooler.internal:6432/chirp", "DATABASE_AUTH_POOL_SIZE": "2",
        ])
        #expect(given.authDatabase.setting("password") == "other")
        #expect(given.authDatabase.setting("host") == "pooler.internal")
        #expect(given.authPool.maxConnections == 2)
        #expect(!given.authDatabase.allowsRowSecurityBypass)
    }

    @Test func metricsGetAListenerOfTheirOwnOnlyWhenAsked() throws {
        #expect(try configuration([:]).metricsHTTP == nil)
        let metrics = try #require(try configuration(["HOST": "0.0.0.0", "METRICS_PORT": "9090"]).metricsHTTP)
        #expect(metrics.port == 9090 && metrics.host == "0.0.0.0")
        #expect(try configuration(["METRICS_PORT": "9090", "METRICS_HOST": "127.0.0.1"]).metricsHTTP?.host == "127.0.0.1")
    }

    /// A random 32-hex-digit secret passes; what a person types to fill the field does not.
    @Test func aSecretIsJudgedByTheSpreadOfItsCharacters() {
        #expect(Environment.estimatedEntropyBits("4f1c9a7e2b8d0c3f6a5e9b1d7c2f8a0e") >= Environment.minimumSecretBits)
        #expect(Environment.estimatedEntropyBits("passwordpasswordpasswordpassword") < Environment.minimumSecretBits)
        #expect(Environment.estimatedEntropyBits(String(repeating: "a", count: 100)) == 0)
    }

    @Test func replicaURLsSplitOnCommasButKeepAMultiHostURLWhole() throws {
        let replicas = try configuration([
            "DATABASE_REPLICA_URLS": " postgres://chirp_service@r1:5432/chirp , postgresql://chirp_service@r2,r3:5433/chirp,",
        ]).replicas
        #expect(replicas.count == 2)
        #expect(replicas.first?.setting("host") == "r1")
        #expect(replicas.last?.setting("host") == "r2,r3")
        #expect(replicas.allSatisfy { !$0.allowsRowSecurityBypass })
        #expect(try configuration(["DATABASE_REPLICA_URLS": ""]).replicas.isEmpty)
    }

    @Test func replicasFollowThePrimarysBypassPermission() throws {
        let configuration = try configuration([
            "CHIRP_ALLOW_BYPASSRLS": "1", "DATABASE_REPLICA_URLS": "postgres://postgres@r1/chirp",
        ])
        #expect(configuration.database.allowsRowSecurityBypass)
        #expect(configuration.replicas.first?.allowsRowSecurityBypass == true)
    }

    @Test func lagBoundAndShutdownDelayAreMilliseconds() throws {
        let configuration = try configuration(["DATABASE_REPLICA_MAX_LAG_MS": "250", "SHUTDOWN_DELAY_MS": "1500"])
        #expect(configuration.replicaMaxLag == .milliseconds(250))
        #expect(configuration.shutdownDelay == .milliseconds(1500))
    }

    @Test func proxySettingsReachTheServer() throws {
        let http = try configuration(["TRUSTED_PROXIES": "10.0.0.0/8, ::1", "PROXY_PROTOCOL": "1"]).http
        #expect(http.proxyProtocol)
        #expect(http.trustedProxies.contains("10.1.2.3"))
        #expect(http.trustedProxies.contains("::1"))
        #expect(!http.trustedProxies.contains("192.0.2.1"))
    }

    @Test(arguments: [
        (["DATABASE_REPLICA_URLS": "not a url"], "DATABASE_REPLICA_URLS"),
        (["DATABASE_REPLICA_MAX_LAG_MS": "0"], "DATABASE_REPLICA_MAX_LAG_MS"),
        (["SHUTDOWN_DELAY_MS": "-1"], "SHUTDOWN_DELAY_MS"),
        (["SHUTDOWN_DELAY_MS": "soon"], "SHUTDOWN_DELAY_MS"),
        (["CHIRP_ALLOW_BYPASSRLS": "yes"], "CHIRP_ALLOW_BYPASSRLS"),
        (["PROXY_PROTOCOL": "true"], "PROXY_PROTOCOL"),
        (["PROXY_PROTOCOL": "1"], "TRUSTED_PROXIES"),
        (["TRUSTED_PROXIES": "10.0.0.0/33"], "TRUSTED_PROXIES"),
        (["TRUSTED_PROXIES": "proxy.internal"], "TRUSTED_PROXIES"),
        (["JWT_SECRET": "short"], "JWT_SECRET"),
        (["JWT_SECRET": "change-me-change-me-change-me-change-me"], "JWT_SECRET"),
        (["JWT_SECRET": "passwordpasswordpasswordpassword"], "JWT_SECRET"),
        (["JWT_SECRET": String(repeating: "k", count: 64)], "JWT_SECRET"),
        (["METRICS_PORT": "8080"], "METRICS_PORT"),
        (["METRICS_PORT": "0"], "METRICS_PORT"),
        (["JWT_SECRET": ""], "JWT_SECRET"),
        (["DATABASE_URL": ""], "DATABASE_URL"),
        (["PORT": "70000"], "PORT"),
        (["LOG_LEVEL": "loud"], "LOG_LEVEL"),
        (["DATABASE_AUTH_URL": "not a url"], "DATABASE_AUTH_URL"),
        (["DATABASE_AUTH_POOL_SIZE": "0"], "DATABASE_AUTH_POOL_SIZE"),
    ])
    func aWrongValueIsRefusedByName(_ extra: [String: String], _ named: String) {
        let message = refusal(extra)
        #expect(message?.contains(named) == true, "\(extra): \(message ?? "accepted")")
    }
}
