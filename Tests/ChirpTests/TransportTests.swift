import Foundation
import Testing

/// The two ways `TestClient` reaches a service agree: a request handed to the router directly
/// gets the answer the same request gets over a socket, short of what only the server adds.
/// Both transports are the point here, so this suite uses both on one service.
@Suite struct TransportTests {
    @Test func theRouterAnswersAsTheServerDoesShortOfTheServersOwnHeaders() async throws {
        let app = try await TestService.started(over: .socket)
        let router = TestClient(.router, to: app.service)
        let user = try await app.signUp("transport")
        for body in ["swift and postgres", "swift alone", "caf\u{E9} au lait"] { try await app.createPost(body, by: user) }

        let requests: [(method: String, path: String, body: String?)] = [
            ("GET", "/v1/search/posts?q=swift%20postgres", nil),
            ("GET", "/v1/search/posts?q=swift+alone", nil),  // `+` is a space in a query
            ("GET", "/v1/search/posts?q=caf%C3%A9&q=swift", nil),  // the first value of a key wins
            ("GET", "/v1/search/posts?q=%FF%FE", nil),
            ("GET", "/v1/search/posts?per=abc&q=swift", nil),
            ("GET", "/v1/users/\(user.username.uppercased())?limit=1", nil),
            ("GET", "/v1/users/\(user.username)/posts?limit=2#fragment", nil),
            ("GET", "/v1/posts/not-a-uuid", nil),
            ("GET", "/v1/nowhere", nil),
            ("PATCH", "/v1/posts", nil),  // 405 with Allow
            ("POST", "/v1/posts", #"{"body":"   "}"#),
            ("POST", "/v1/posts", #"{"body":"#),
            ("DELETE", "/v1/posts/\(UUID())", nil),
        ]
        for (method, path, body) in requests {
            let label = "\(method) \(path)"
            // One request id for both, so that problem bodies, which carry it, compare alike.
            let headers = ["X-Request-ID": "transport-test"]
            let data = body.map { Data($0.utf8) }
            let overSocket = try await app.client.request(method, path, body: data, token: user.accessToken, headers: headers)
            let routed = try await router.request(method, path, body: data, token: user.accessToken, headers: headers)
            #expect(routed.status == overSocket.status, "\(label)")
            #expect(routed.text == overSocket.text, "\(label)")
            // Each of the two counts against the search budget, so `RateLimit` tells each how
            // much is left; the policy is the same.
            for (name, value) in routed.headers where name != "RateLimit" {
                #expect(overSocket.header(name) == value, "\(label): \(name)")
            }
            #expect((routed.header("RateLimit") == nil) == (overSocket.header("RateLimit") == nil), "\(label)")
            // The server's middleware tags every response with its request id; problems carry
            // it already, other answers only over the socket.
            #expect(overSocket.header("X-Request-ID") == "transport-test", "\(label)")
            #expect(routed.header("X-Request-ID") == (routed.status < 400 ? nil : "transport-test"), "\(label)")
        }
    }
}
