import HTTP
import Testing

@Suite struct ConnectionTests {
    @Test func keepAliveServesTwoRequestsOnOneConnection() throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try server.send(TestServer.getHello)
        let first = try connection.readResponse()
        #expect(first.status == 200)
        #expect(first.headers["Connection"]?.lowercased() != "close")
        try connection.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nagain")
        let second = try connection.readResponse()
        #expect(second.status == 200)
        #expect(second.text == "again")
        // Kept open until counted: an optimised build may end a value's life at its last use.
        withExtendedLifetime(connection) { #expect(server.server.openConnections == 1) }
    }

    @Test func aSlowHandlerDoesNotHoldUpOthersOnItsLoop() throws {
        // One loop serves both connections: while one handler awaits for 800 ms, the loop
        // answers the other connection at once.
        let server = try TestServer(configure: { $0.eventLoops = 1 })
        defer { server.stop() }
        let slow = try server.send("GET /sleep/800 HTTP/1.1\r\nHost: t\r\n\r\n")
        let started = ContinuousClock.now
        for _ in 0..<5 {
            #expect(try server.get("/hello").status == 200)
        }
        #expect(started.duration(to: .now) < .milliseconds(400))
        #expect(try slow.readResponse().text == "slept 800")
        #expect(started.duration(to: .now) >= .milliseconds(700))
    }

    @Test func connectionsSpreadOverEveryLoopAreAllServed() throws {
        let server = try TestServer(configure: { $0.eventLoops = 3 })
        defer { server.stop() }
        let connections = try (0..<12).map { _ in try server.connect() }
        for (index, connection) in connections.enumerated() {
            try connection.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n\(index + 10)")
        }
        for (index, connection) in connections.enumerated() {
            #expect(try connection.readResponse().text == "\(index + 10)")
        }
        withExtendedLifetime(connections) { #expect(server.server.openConnections == 12) }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try server.connect()
        try connection.send(
            "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\none"
                + TestServer.getHello
                + "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nthree")
        #expect(try connection.readResponse().text == "one")
        #expect(try connection.readResponse().text == "hello")
        #expect(try connection.readResponse().text == "three")
    }

    @Test func headSendsLengthButNoBody() throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try server.send("HEAD /hello HTTP/1.1\r\nHost: t\r\n\r\nGET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        let head = try connection.readResponse(bodyless: true)
        #expect(head.status == 200)
        #expect(head.headers["Content-Length"] == "5")
        // Had a body been sent, it would be read here as the next status line.
        let next = try connection.readResponse()
        #expect(next.status == 200)
        #expect(next.text == "hello")
    }

    @Test func percentEncodedPathAndQueryReachTheHandler() throws {
        let server = try TestServer(extraRoutes: { router in
            router.add(.GET, "/tags/:tag") { request in
                .text(200, "\(request.pathParameters["tag"] ?? "")|\(request.query["q"] ?? "")|\(request.remoteAddress)")
            }
        })
        defer { server.stop() }
        let response = try server.get("/tags/caf%C3%A9?q=a+b%26c")
        #expect(response.text == "café|a b&c|127.0.0.1")
    }
}
