import Chirp
import Foundation
import HTTP
import TestSupport

/// One more running instance of the service over an existing test database, as a second server
/// behind a load balancer, or the next release during a rolling deploy, would run it.
final class TestServiceInstance: @unchecked Sendable {  // immutable after init
    let service: ChirpService
    let client: TestClient

    init(
        on database: TestDatabase, over transport: TestClient.Transport, configure: (inout ChirpConfiguration) throws -> Void = { _ in }
    ) throws {
        var configuration = try ChirpConfiguration.forTests(on: database)
        try configure(&configuration)
        service = try ChirpService(configuration: configuration)
        try service.start()
        client = TestClient(transport, to: service)
    }

    deinit {
        service.shutdown()
    }
}

extension TestClient {
    func logIn(_ username: String, _ password: String, from address: String = "127.0.0.1") async throws -> Response {
        try await request(
            "POST", "/v1/auth/login", body: try JSONSerialization.data(withJSONObject: ["username": username, "password": password]),
            from: address)
    }
}

extension TestService {
    /// The service's own count of Argon2id operations, from `/metrics`.
    func hashesPerformed() async throws -> Int {
        let metrics = try await client.get("/metrics").text
        guard let line = metrics.split(separator: "\n").first(where: { $0.hasPrefix("password_hashes_total ") }),
              let value = Double(line.split(separator: " ")[1])
        else { throw TestClient.Failure(description: "no password_hashes_total in /metrics") }
        return Int(value)
    }
}
