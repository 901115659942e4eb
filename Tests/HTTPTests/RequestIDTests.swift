import HTTP
import Testing

@Suite struct RequestIDTests {
    @Test func saneIDIsEchoed() throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try server.get("/hello", headers: "X-Request-ID: client-42.a_b\r\n")
        #expect(response.headers["X-Request-ID"] == "client-42.a_b")
    }

    @Test func missingOrUnsafeIDIsReplaced() throws {
        let server = try TestServer()
        defer { server.stop() }
        let generated = try #require(try server.get("/hello").headers["X-Request-ID"])
        #expect(generated.count == 32)
        let unsafe = try #require(try server.get("/hello", headers: "X-Request-ID: a b\"<script>\r\n").headers["X-Request-ID"])
        #expect(unsafe.count == 32 && !unsafe.contains("script"))
        let long = try #require(try server.get("/hello", headers: "X-Request-ID: \(String(repeating: "x", count: 129))\r\n").headers["X-Request-ID"])
        #expect(long.count == 32)
    }

    @Test func serverMadeRefusalsCarryTheIDInHeaderAndBody() throws {
        let server = try TestServer()
        defer { server.stop() }
        let notFound = try server.get("/missing", headers: "X-Request-ID: nf-1\r\n")
        #expect(notFound.status == 404)
        #expect(notFound.headers["X-Request-ID"] == "nf-1")
        #expect(notFound.text.contains(#""requestId":"nf-1""#))

        let connection = try server.send("POST /echo HTTP/1.1\r\nHost: t\r\nX-Request-ID: big-1\r\nContent-Length: 999999\r\n\r\n")
        let tooLarge = try connection.readResponse()
        #expect(tooLarge.status == 413)
        #expect(tooLarge.headers["X-Request-ID"] == "big-1")
        #expect(tooLarge.text.contains(#""requestId":"big-1""#))
    }

    @Test func accessLogHasTheFieldsAndNoSecrets() throws {
        let server = try TestServer(extraRoutes: { router in
            router.add(.GET, "/v1/posts/:id") { _ in .text(200, "secret-body") }
        })
        defer { server.stop() }
        let response = try server.get(
            "/v1/posts/7?token=secret-query",
            headers: "Authorization: Bearer secret-token\r\nX-Request-ID: log-1\r\n")
        #expect(response.status == 200)
        let line = try #require(server.accessLog.all.first { $0.contains("log-1") })
        for field in [#""level":"info""#, #""method":"GET""#, #""route":"/v1/posts/:id""#, #""status":200"#,
                      #""requestId":"log-1""#, #""remote":"127.0.0.1""#, #""durationMs":"#, #""time":"#] {
            #expect(line.contains(field), "missing \(field) in \(line)")
        }
        #expect(!line.contains("secret"))
    }

    @Test func refusalsAreLoggedToo() throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try server.send("POST /echo HTTP/1.1\r\nHost: t\r\nX-Request-ID: refused-1\r\nContent-Length: 5000\r\n\r\n")
        #expect(try connection.readResponse().status == 413)
        let line = try #require(server.accessLog.all.first { $0.contains("refused-1") })
        #expect(line.contains(#""status":413"#))
        #expect(line.contains(#""route":"unmatched""#))
    }
}
