import HTTP
import Testing

/// A handler's error, caught by the server itself rather than by a router, is answered and
/// logged like one the router catches.
@Suite struct HandlerErrorTests {
    struct Boom: Error {}

    @Test func anUnexpectedErrorIsA500WithoutDetailAndItsCauseIsLogged() throws {
        let server = try TestServer(handler: { _ in throw Boom() })
        defer { server.stop() }
        let response = try server.get("/anything", headers: "X-Request-ID: boom-1\r\n")
        #expect(response.status == 500)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(response.text.contains(#""code":"internal""#))
        #expect(!response.text.contains("Boom"))
        let line = try #require(server.serverLog.all.first { $0.contains("handler failed") })
        #expect(line.contains(#""requestId":"boom-1""#))
        #expect(line.contains("Boom"))
    }

    /// A problem's cause (what went wrong underneath, such as the database error behind a 503)
    /// goes to the access log line of its request, and never to the client.
    @Test func aProblemsCauseIsInTheAccessLogOnly() throws {
        var unavailable = HTTPError.unavailable(retryAfter: 2, detail: "the database is unavailable")
        unavailable.cause = "PostgresError.connection: server closed the connection unexpectedly"
        let thrown = unavailable
        let server = try TestServer(handler: { _ in throw thrown })
        defer { server.stop() }
        let response = try server.get("/anything")
        #expect(response.status == 503)
        #expect(!response.text.contains("PostgresError"))
        let line = try #require(server.accessLog.all.first { $0.contains(#""status":503"#) })
        #expect(line.contains(#""cause":"PostgresError.connection: server closed the connection unexpectedly""#))
    }

    @Test func anHTTPErrorIsItsProblemAndIsNotLogged() throws {
        let server = try TestServer(handler: { _ in throw HTTPError.conflict(code: "taken", detail: "already there") })
        defer { server.stop() }
        let response = try server.get("/anything")
        #expect(response.status == 409)
        #expect(response.text.contains(#""code":"taken""#))
        #expect(server.serverLog.all.allSatisfy { !$0.contains("handler failed") })
    }
}
