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
        "JWT_SECRET": String(repeating: "k", count: 32),
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
        (["JWT_SECRET": ""], "JWT_SECRET"),
        (["DATABASE_URL": ""], "DATABASE_URL"),
        (["PORT": "70000"], "PORT"),
        (["LOG_LEVEL": "loud"], "LOG_LEVEL"),
    ])
    func aWrongValueIsRefusedByName(_ extra: [String: String], _ named: String) {
        let message = refusal(extra)
        #expect(message?.contains(named) == true, "\(extra): \(message ?? "accepted")")
    }
}
