import CSodium
import Chirp
import Foundation
import HTTP
import Postgres
import TestSupport

/// A running service on an ephemeral port, over its own fresh database, and a client that
/// reaches it over the transport the suite chose.
final class TestService: @unchecked Sendable {  // immutable after init
    let database: TestDatabase
    let instance: TestServiceInstance
    var service: ChirpService { instance.service }
    var client: TestClient { instance.client }

    private init(database: TestDatabase, over transport: TestClient.Transport, configure: (inout ChirpConfiguration) throws -> Void) throws {
        self.database = database
        instance = try TestServiceInstance(on: database, over: transport, configure: configure)
    }

    /// Starts one over `database`, reached over `transport`.
    static func started(
        on database: TestDatabase, over transport: TestClient.Transport, configure: (inout ChirpConfiguration) throws -> Void = { _ in }
    ) throws -> TestService {
        try TestService(database: database, over: transport, configure: configure)
    }

    /// Starts one over a freshly migrated database, reached over `transport`.
    static func started(
        over transport: TestClient.Transport, configure: (inout ChirpConfiguration) throws -> Void = { _ in }
    ) async throws -> TestService {
        try TestService(database: try await TestDatabase.migrated(), over: transport, configure: configure)
    }

    /// Signs up a new user with a unique name and returns their session.
    func signUp(_ prefix: String = "user", password: String = "correct horse battery") async throws -> TestUser {
        let username = "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
        let response = try await client.post("/v1/auth/signup", json: ["username": username, "password": password])
            .requiring(201, "sign-up of \(username)")
        guard let user = TestUser(session: response.json, password: password) else {
            throw TestClient.Failure(description: "sign-up of \(username) answered no session: \(response.text)")
        }
        return user
    }
}

/// A signed-up user and their tokens.
struct TestUser: Sendable {
    var id, username, password, accessToken, refreshToken: String

    init?(session: JSON, password: String) {
        guard let id = session["user"]["id"].string, let username = session["user"]["username"].string,
              let access = session["accessToken"].string, let refresh = session["refreshToken"].string
        else { return nil }
        self.id = id
        self.username = username
        self.password = password
        self.accessToken = access
        self.refreshToken = refresh
    }
}

extension ChirpConfiguration {
    /// What `TestService` runs with: the same secret, an ephemeral port, address budgets (sign-in
    /// and search) out of the way (every test client comes from 127.0.0.1), and the cheapest password hashing.
    static func forTests(on database: TestDatabase) throws -> ChirpConfiguration {
        var http = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        http.perIPConnectionLimit = 0
        // A kept-alive connection that the server times out just as the client reuses it ends
        // that request with an empty reply: the race every HTTP/1.1 server has, which clients
        // answer by retrying, but URLSession does not retry a POST. With a whole suite running
        // on two cores a test can sit idle for 15 s, so the idle timers here stay above the
        // client's own 30 s timeout. The timers themselves are tested in HTTPTests.
        http.connectionTimeout = .seconds(120)
        http.requestTimeout = .seconds(120)
        var configuration = ChirpConfiguration(
            database: try database.service, pool: .init(maxConnections: 8, leaseTimeout: .seconds(5)),
            http: http, jwtSecret: TestSecret.bytes, logLevel: .error)
        // Two sign-in connections: enough for the tests, and every test database's pools add up
        // on the test cluster (and behind the pooler, on its server connections).
        configuration.authPool.maxConnections = 2
        configuration.rateLimits.signupPerAddress.limit = 100_000
        configuration.rateLimits.loginPerAddress.limit = 100_000
        configuration.rateLimits.refreshPerAddress.limit = 100_000
        configuration.search.perAddress.limit = 100_000
        // A whole suite on two cores can hold a search past production's half second.
        configuration.search.statementTimeout = .seconds(30)
        configuration.passwordHashing = .leastForTests
        return configuration
    }

    /// Hashes passwords as a configuration does when it leaves hashing alone, as production
    /// does: for the tests whose point is the hashing itself.
    mutating func hashPasswordsAsProduction() {
        passwordHashing = ChirpConfiguration(database: database, jwtSecret: jwtSecret).passwordHashing
    }
}

extension PasswordHasher.Parameters {
    /// The least work libsodium's Argon2id accepts (one pass over 8 KiB). Every test service
    /// hashes with it unless its test is about hashing, so that a sign-up, a login and the
    /// service's own decoy hash cost a fraction of a millisecond instead of OWASP's 55 ms. A
    /// login rehashes only a hash made with other parameters than the service's, so the
    /// services' own hashes are never rehashed.
    static let leastForTests = PasswordHasher.Parameters(
        passes: crypto_pwhash_argon2id_opslimit_min(), memoryBytes: crypto_pwhash_argon2id_memlimit_min())
}

/// The JWT secret every test service signs access tokens with.
enum TestSecret {
    static let bytes = Array("test-secret-test-secret-test-secret!".utf8)
}
