#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTP
import Testing

@Suite struct ConnectionLimitTests {
    @Test func connectionsPastThePerAddressLimitAreClosed() throws {
        let server = try TestServer(configure: { $0.perIPConnectionLimit = 2 })
        defer { server.stop() }
        var held = [try server.connect(), try server.connect()]
        for connection in held {
            try connection.send(TestServer.getHello)
            #expect(try connection.readResponse().status == 200)
        }
        let third = try server.connect()
        try? third.send(TestServer.getHello)
        #expect(third.waitForClose(timeout: .seconds(1)))

        // A freed slot is usable again.
        held.removeFirst()
        var servedAgain = false
        let started = ContinuousClock.now
        while !servedAgain && started.duration(to: .now) < .seconds(2) {
            servedAgain = (try? server.get("/hello").status) == 200
            if !servedAgain { usleep(50_000) }
        }
        #expect(servedAgain)
        #expect(held.count == 1)
    }

    @Test func connectionsPastTheGlobalLimitAreClosed() throws {
        let server = try TestServer(configure: {
            $0.connectionLimit = 3
            $0.perIPConnectionLimit = 0
        })
        defer { server.stop() }
        let held = try (0..<3).map { _ in try server.connect() }
        for connection in held {
            try connection.send(TestServer.getHello)
            #expect(try connection.readResponse().status == 200)
        }
        let extra = try server.connect()
        try? extra.send(TestServer.getHello)
        // The held connections stay open to the end: an optimised build may end a value's life
        // at its last use, which would free their slots.
        withExtendedLifetime(held) {
            #expect(extra.waitForClose(timeout: .seconds(1)))
            #expect(server.server.openConnections == 3)
        }
    }
}
