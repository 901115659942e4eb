import Foundation
import HTTP
import Testing

/// Browsers on the listed origins may call the API: preflights are answered, and every answer,
/// errors included, names the origin and exposes the headers a client reads. Other origins get
/// nothing a browser would let their page read. Over sockets: the headers are the point.
@Suite struct CORSTests {
    static let app = "https://app.example.com"

    @Test func aListedOriginsPreflightIsAnsweredAndItsAnswersAreReadable() async throws {
        let service = try await TestService.started(over: .socket) { $0.cors = CORSPolicy(allowedOrigins: [Self.app]) }
        let preflight = try await service.client.request("OPTIONS", "/v1/posts", headers: [
            "Origin": Self.app, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, idempotency-key",
        ], contentType: nil)
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Origin") == Self.app)
        let methods = preflight.header("Access-Control-Allow-Methods") ?? ""
        #expect(methods.contains("POST") && methods.contains("DELETE") && methods.contains("PATCH"))
        let allowed = (preflight.header("Access-Control-Allow-Headers") ?? "").lowercased()
        for header in ["authorization", "content-type", "idempotency-key", "if-none-match"] { #expect(allowed.contains(header)) }
        #expect(preflight.header("Access-Control-Max-Age") == "600")
        #expect(preflight.header("Access-Control-Allow-Credentials") == nil)

        let user = try await service.signUp("cors")
        let created = try await service.client.post(
            "/v1/posts", json: ["body": "from a web page"], token: user.accessToken, headers: ["Origin": Self.app])
        #expect(created.status == 201)
        #expect(created.header("Access-Control-Allow-Origin") == Self.app)
        let exposed = created.header("Access-Control-Expose-Headers") ?? ""
        for header in ["ETag", "Location", "RateLimit", "Retry-After", "X-Request-ID"] { #expect(exposed.contains(header), "\(header)") }
        #expect(created.header("Vary")?.contains("Origin") == true)

        let feed = try await service.client.get("/v1/feed", token: user.accessToken, headers: ["Origin": Self.app])
        #expect(feed.status == 200 && feed.header("Access-Control-Allow-Origin") == Self.app)
        // A page must be able to read why it failed, too.
        let refused = try await service.client.get("/v1/feed", headers: ["Origin": Self.app])
        #expect(refused.status == 401 && refused.header("Access-Control-Allow-Origin") == Self.app)
    }

    @Test func otherOriginsGetNothingTheirPagesCouldRead() async throws {
        let service = try await TestService.started(over: .socket) { $0.cors = CORSPolicy(allowedOrigins: [Self.app]) }
        let preflight = try await service.client.request("OPTIONS", "/v1/posts", headers: [
            "Origin": "https://evil.example", "Access-Control-Request-Method": "POST",
        ], contentType: nil)
        #expect(preflight.status == 403)
        #expect(preflight.header("Access-Control-Allow-Origin") == nil)
        let read = try await service.client.get("/v1/posts", headers: ["Origin": "https://evil.example"])
        #expect(read.status == 200)
        #expect(read.header("Access-Control-Allow-Origin") == nil)
        #expect(read.header("Vary")?.contains("Origin") == true)
    }

    @Test func withoutAPolicyNoOriginIsLetIn() async throws {
        let service = try await TestService.started(over: .socket)
        let preflight = try await service.client.request("OPTIONS", "/v1/posts", headers: [
            "Origin": Self.app, "Access-Control-Request-Method": "GET",
        ], contentType: nil)
        #expect(preflight.status == 405)
        #expect(preflight.header("Access-Control-Allow-Origin") == nil)
        let read = try await service.client.get("/v1/posts", headers: ["Origin": Self.app])
        #expect(read.header("Access-Control-Allow-Origin") == nil)
    }

    @Test func everyOriginWhenTheListSaysSo() async throws {
        let service = try await TestService.started(over: .socket) { $0.cors = CORSPolicy(allowedOrigins: ["*"]) }
        let read = try await service.client.get("/v1/posts", headers: ["Origin": "http://localhost:5173"])
        #expect(read.header("Access-Control-Allow-Origin") == "http://localhost:5173")
    }
}
