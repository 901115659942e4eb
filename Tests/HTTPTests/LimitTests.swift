import HTTP
import Testing

@Suite struct LimitTests {
    /// A request the server refuses itself, before any handler runs.
    struct Refusal: Sendable, CustomTestStringConvertible {
        enum Afterwards: Sendable {
            /// Refused before its body: the framing cannot be trusted, so the connection closes.
            case closed
            /// Refused without a body to skip, so the connection stays usable.
            case reusable
            /// The body was read to its end; whether the connection stays is libmicrohttpd's call.
            case either
        }

        var name: String
        var request: String
        var status: Int
        var code: String
        var afterwards: Afterwards

        var testDescription: String { name }
    }

    static let chunk = String(repeating: "b", count: 600)

    static let refusals: [Refusal] = [
        // Headers only: if the server waited for the body, no answer would come.
        Refusal(
            name: "declared length over the limit", request: "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1025\r\n\r\n",
            status: 413, code: "payload_too_large", afterwards: .closed),
        Refusal(
            name: "chunked body over the limit",
            request: "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n0\r\n\r\n",
            status: 413, code: "payload_too_large", afterwards: .either),
        Refusal(
            name: "Transfer-Encoding with Content-Length",
            request: "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            status: 400, code: "bad_request", afterwards: .closed),
        Refusal(
            name: "unknown transfer coding",
            request: "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
            status: 501, code: "not_implemented", afterwards: .closed),
        Refusal(
            name: "unknown method", request: "BREW /hello HTTP/1.1\r\nHost: t\r\n\r\n",
            status: 501, code: "not_implemented", afterwards: .reusable),
    ]

    /// Every refusal is a problem response with its status, code and request id, no handler
    /// sees the request, and the connection closes or stays as its framing allows.
    @Test(arguments: refusals) func refusedBeforeAnyHandler(_ refusal: Refusal) throws {
        let server = try TestServer()  // maxBodyBytes = 1024
        defer { server.stop() }
        let connection = try server.send(refusal.request)
        let response = try connection.readResponse(timeout: .seconds(1))
        #expect(response.status == refusal.status)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(response.text.contains(#""code":"\#(refusal.code)""#))
        #expect(response.headers["X-Request-ID"] != nil)
        switch refusal.afterwards {
        case .closed:
            #expect(connection.waitForClose(timeout: .seconds(1)))
        case .reusable:
            try connection.send(TestServer.getHello)
            #expect(try connection.readResponse().status == 200)
        case .either:
            break
        }
        #expect(server.handled.value == (refusal.afterwards == .reusable ? 1 : 0))
    }

    @Test func bodyOfExactlyTheLimitIsAccepted() throws {
        let server = try TestServer()
        defer { server.stop() }
        let body = String(repeating: "a", count: 1024)
        let response = try server.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1024\r\n\r\n\(body)").readResponse()
        #expect(response.status == 200)
        #expect(response.body.count == 1024)
    }

    @Test func chunkedBodyWithinTheLimitIsAssembled() throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try server.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
        #expect(try connection.readResponse().text == "abcde")
    }

    @Test func chunkedFloodFarOverTheLimitIsCut() throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try server.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunk = "4000\r\n" + String(repeating: "c", count: 0x4000) + "\r\n"
        // 400 KiB, past what is read and dropped to answer 413 politely.
        for _ in 0..<25 { try? connection.send(chunk) }
        #expect(connection.waitForClose(timeout: .seconds(2)))
        #expect(server.handled.value == 0)
    }

    @Test func longURLIs414Problem() throws {
        let server = try TestServer(configure: { $0.maxURLBytes = 100 })
        defer { server.stop() }
        let okay = try server.get("/hello?" + String(repeating: "q", count: 93))  // 100 bytes
        #expect(okay.status == 200)
        let response = try server.get("/hello?" + String(repeating: "q", count: 94))
        #expect(response.status == 414)
        #expect(response.text.contains(#""code":"uri_too_long""#))
    }

    /// The default connection pool is small (it is cleared between requests), but the longest
    /// target the server answers still fits beside a few kilobytes of headers.
    @Test func theLongestTargetFitsTheDefaultPoolWithRoomForHeaders() throws {
        let server = try TestServer()
        defer { server.stop() }
        let target = "/hello?" + String(repeating: "q", count: HTTPServerConfiguration().maxURLBytes - 7)
        let connection = try server.send(
            "GET \(target) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(String(repeating: "t", count: 1000))\r\n"
                + "X-Padding: \(String(repeating: "p", count: 3000))\r\n\r\n")
        #expect(try connection.readResponse(timeout: .seconds(1)).status == 200)
    }

    @Test func knownMethodOnWrongRouteIs405() throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try server.send("DELETE /hello HTTP/1.1\r\nHost: t\r\n\r\n").readResponse()
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, HEAD")
    }

    @Test func hugeHeaderIsRefusedWithoutHarm() throws {
        let server = try TestServer(configure: { $0.connectionMemoryLimit = 16 * 1024 })
        defer { server.stop() }
        let connection = try server.send("GET /hello HTTP/1.1\r\nHost: t\r\nX-Big: \(String(repeating: "h", count: 20000))\r\n\r\n")
        switch connection.outcome(timeout: .seconds(1)) {
        case .response(let response): #expect([400, 413, 431].contains(response.status))
        case .closed: break
        case .silent: Issue.record("no answer to an oversized header")
        }
        #expect(try server.get("/hello").status == 200)
    }
}
