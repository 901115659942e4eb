import EventLoops
import Foundation
import Glibc
import Postgres
import TestSupport
import Testing

/// Restarts a cluster of its own (started with `scripts/pg`), so other suites keep theirs.
@Suite struct ServerRestartTests {
    @discardableResult
    static func pg(_ arguments: String...) async throws -> Int32 {
        try await RepositoryScript.run(["scripts/pg"] + arguments)
    }

    /// A port nothing uses now, from the kernel. A fixed or random pick in the ephemeral range
    /// can collide with the local end of one of the many connections the other suites open.
    static func freePort() -> Int {
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(probe) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(probe, $0, length) == 0 && getsockname(probe, $0, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : 56_000 + Int.random(in: 0..<2_000)
    }

    @Test(.timeLimit(.minutes(2)))
    func thePoolRecoversAfterTheServerRestarts() async throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("chirp-restart-\(UUID().uuidString.prefix(8))").path
        let port = Self.freePort()
        #expect(try await Self.pg("start", folder, String(port)) == 0)
        var configuration = try PostgresConfiguration(url: "postgres://postgres@127.0.0.1:\(port)/postgres")
        configuration.allowsRowSecurityBypass = true
        let pool = try PostgresPool(configuration: configuration, pool: .init(maxConnections: 2), eventLoop: TestCluster.eventLoop)
        let started = PostgresQuery("select pg_postmaster_start_time()").value(PostgresTimestamp.self)
        do {
            let before = try await pool.execute(as: TestCluster.superuser, started)
            #expect(try await Self.pg("restart", folder) == 0)
            let after = try await pool.execute(as: TestCluster.superuser, started)
            #expect(after > before)
            #expect(pool.statistics.connectionsOpened == 2)
        } catch {
            Issue.record(error)
        }
        pool.close()
        _ = try? await Self.pg("stop", folder)
        try? FileManager.default.removeItem(atPath: folder)
    }
}
