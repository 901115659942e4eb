import Chirp
import Foundation
import HTTP

/// One more running instance of the service over an existing test database, as a second server
/// behind a load balancer, or the next release during a rolling deploy, would run it.
final class TestServiceInstance: @unchecked Sendable {  // immutable after init
    let service: ChirpService
    let client: TestClient

    init(on database: TestDatabase, configure: (inout ChirpConfiguration) -> Void = { _ in }) throws {
        var configuration = ChirpConfiguration.forTests(on: database)
        configure(&configuration)
        service = ChirpService(configuration: configuration)
        try service.start()
        client = TestClient(port: service.port)
    }

    deinit {
        service.shutdown()
    }
}

extension TestClient {
    func logIn(_ username: String, _ password: String) async throws -> Response {
        try await post("/v1/auth/login", json: ["username": username, "password": password])
    }
}

/// What `body` returns and how long it took, on the monotonic clock.
func timed<T>(_ body: () async throws -> T) async rethrows -> (T, Duration) {
    let clock = ContinuousClock()
    let start = clock.now
    let value = try await body()
    return (value, clock.now - start)
}
