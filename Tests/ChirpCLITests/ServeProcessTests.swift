import Foundation
import Glibc
import Postgres
import TestSupport
import Testing

/// `chirp serve` as a process, stopped as an orchestrator stops it: SIGTERM turns `/readyz` to
/// 503 while requests are still served for `SHUTDOWN_DELAY_MS`, then the listener closes, the
/// request in flight finishes with the database still there, and the process exits 0.
@Suite struct ServeProcessTests {
    @Test(.timeLimit(.minutes(1)))
    func sigtermWithdrawsReadinessThenDrainsThenExits() async throws {
        let database = try await TestDatabase.migrated()
        let port = try Self.freePort()
        let (service, output) = try Self.serve(database, port: port, environment: ["SHUTDOWN_DELAY_MS": "1500"])
        defer { if service.isRunning { kill(service.processIdentifier, SIGKILL) } }

        #expect(Self.poll(for: .seconds(20)) { Self.status(of: "/readyz", port: port) == 200 }, "never ready: \(output())")

        // A login whose body is half sent when the signal comes.
        let body = #"{"username":"nobody_here","password":"not the password"}"#
        let inFlight = try RawConnection(port: port)
        try inFlight.send("POST /v1/auth/login HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
        try inFlight.send(String(body.prefix(20)))
        usleep(100_000)

        let signalled = ContinuousClock.now
        kill(service.processIdentifier, SIGTERM)
        #expect(Self.poll(for: .seconds(1)) { Self.status(of: "/readyz", port: port) == 503 }, "readyz stayed ready: \(output())")
        // Not ready, but still serving.
        #expect(Self.status(of: "/healthz", port: port) == 200)

        // After the delay the listener closes.
        #expect(Self.poll(for: .seconds(5)) { (try? RawConnection(port: port)) == nil }, "still accepting: \(output())")
        #expect(signalled.duration(to: .now) >= .milliseconds(1400))
        #expect(service.isRunning, "exited with a request in flight: \(output())")

        // The request in flight completes, with its database round trip.
        try inFlight.send(String(body.dropFirst(20)))
        let response = try inFlight.readResponse(timeout: .seconds(5))
        #expect(response.status == 401)
        #expect(response.text.contains("username or password is wrong"), "\(response.text)")
        #expect(response.headers["Connection"]?.lowercased() == "close")

        #expect(Self.poll(for: .seconds(10)) { !service.isRunning }, "did not exit: \(output())")
        #expect(service.terminationReason == .exit && service.terminationStatus == 0, "\(output())")
        #expect(output().contains("stopped"))
    }

    /// A port another process holds is refused by name, with what to do about it; and the
    /// service says where it serves only once it does.
    @Test(.timeLimit(.minutes(1)))
    func aPortInUseIsNamedAndServingIsSaidOnceListening() async throws {
        let database = try await TestDatabase.migrated()
        let port = try Self.freePort()
        let first = try Self.serve(database, port: port)
        defer { if first.process.isRunning { kill(first.process.processIdentifier, SIGKILL) } }
        #expect(Self.poll(for: .seconds(20)) { first.output().contains("serving on http://127.0.0.1:\(port)") }, "\(first.output())")

        let second = try Self.serve(database, port: port)
        #expect(Self.poll(for: .seconds(20)) { !second.process.isRunning }, "\(second.output())")
        #expect(second.process.terminationStatus == 1)
        #expect(second.output().contains("could not listen on 127.0.0.1:\(port): address already in use"), "\(second.output())")
        #expect(second.output().contains("set PORT"))
        #expect(!second.output().contains("serving on"))
        kill(first.process.processIdentifier, SIGTERM)
        #expect(Self.poll(for: .seconds(10)) { !first.process.isRunning })
    }

    /// Started as a shell starts a background job (`scripts/run` starts it so), with SIGINT
    /// ignored, the service still stops on SIGINT: it blocks the signal and waits for it, and a
    /// blocked signal is kept whatever its action.
    @Test(.timeLimit(.minutes(1)))
    func sigintStopsAServiceStartedWithItIgnored() async throws {
        let database = try await TestDatabase.migrated()
        let port = try Self.freePort()
        let started = try Self.serve(database, port: port, ignoringSIGINT: true)
        defer { if started.process.isRunning { kill(started.process.processIdentifier, SIGKILL) } }
        #expect(Self.poll(for: .seconds(20)) { Self.status(of: "/readyz", port: port) == 200 }, "\(started.output())")
        kill(started.process.processIdentifier, SIGINT)
        #expect(Self.poll(for: .seconds(10)) { !started.process.isRunning }, "still running after SIGINT: \(started.output())")
        #expect(started.process.terminationReason == .exit && started.process.terminationStatus == 0, "\(started.output())")
    }

    /// `chirp serve` on `port` (with `environment` added), its standard error kept in a file
    /// `output` reads.
    static func serve(
        _ database: TestDatabase, port: Int, ignoringSIGINT: Bool = false, environment: [String: String] = [:]
    ) throws -> (process: Process, output: () -> String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("chirp-serve-\(port)-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let chirp = TestCluster.repository.appendingPathComponent(".build/debug/chirp").path
        let service = Process()
        if ignoringSIGINT {
            // `trap '' INT` sets SIGINT to be ignored, and exec keeps it so.
            service.executableURL = URL(fileURLWithPath: "/bin/sh")
            service.arguments = ["-c", "trap '' INT; exec \"$0\" serve", chirp]
        } else {
            service.executableURL = URL(fileURLWithPath: chirp)
            service.arguments = ["serve"]
        }
        service.currentDirectoryURL = TestCluster.repository
        service.environment = [
            "DATABASE_URL": Self.connectionString(try database.service),
            "JWT_SECRET": UUID().uuidString + UUID().uuidString,
            "HOST": "127.0.0.1",
            "PORT": String(port),
        ].merging(environment) { $1 }
        service.standardError = try FileHandle(forWritingTo: log)
        service.standardOutput = FileHandle.nullDevice
        try service.run()
        return (service, { (try? String(contentsOf: log, encoding: .utf8)) ?? "" })
    }

    /// A libpq `key='value'` string: the test database's keywords, as `DATABASE_URL` accepts them.
    static func connectionString(_ configuration: PostgresConfiguration) -> String {
        configuration.parameters.map { key, value in
            let quoted = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
            return "\(key)='\(quoted)'"
        }.joined(separator: " ")
    }

    /// The status of a GET on a connection of its own, or nil when nothing answered.
    static func status(of path: String, port: Int) -> Int? {
        guard let connection = try? RawConnection(port: port) else { return nil }
        try? connection.send("GET \(path) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        return try? connection.readResponse(timeout: .seconds(2)).status
    }

    static func poll(for limit: Duration, _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    /// A port the kernel has just handed out, free again for the service to bind.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw RawConnection.Failure(description: "no free port: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
