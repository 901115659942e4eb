import Foundation
import Postgres
import Testing

@Suite struct PoolTests {
    @Test func anExhaustedPoolFailsWithATimeoutInsteadOfHanging() throws {
        let pool = PostgresPool(
            configuration: try TestDatabase.adminConfiguration(),
            pool: .init(maxConnections: 1, leaseTimeout: .milliseconds(200)))
        let holding = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? pool.withConnection { _ in
                holding.signal()
                done.wait()
            }
        }
        holding.wait()
        let started = Date()
        do {
            try pool.withConnection { _ in Issue.record("leased a connection from an exhausted pool") }
        } catch let error as PostgresError {
            #expect(error.kind == .poolTimeout)
        }
        let waited = Date().timeIntervalSince(started)
        #expect(waited >= 0.15 && waited < 2)
        #expect(pool.statistics.leaseTimeouts == 1)
        done.signal()
    }

    @Test func theBoundIsNeverExceededUnderContention() throws {
        let pool = PostgresPool(
            configuration: try TestDatabase.adminConfiguration(),
            pool: .init(maxConnections: 3, leaseTimeout: .seconds(10)))
        let results = Mutexed<[Int32]>([])
        DispatchQueue.concurrentPerform(iterations: 24) { _ in
            let pid = try? pool.withConnection { connection in
                try connection.query("select pg_sleep(0.01)")
                return connection.backendPID
            }
            results.withLock { $0.append(pid ?? -1) }
        }
        let pids = results.withLock { $0 }
        #expect(pids.count == 24)
        #expect(!pids.contains(-1))
        #expect(Set(pids).count <= 3)
        #expect(pool.statistics.size <= 3)
    }

    @Test func reconnectsAfterTheBackendIsTerminated() throws {
        let pool = PostgresPool(
            configuration: try TestDatabase.adminConfiguration(), pool: .init(maxConnections: 1))
        let firstPID = try pool.withConnection { $0.backendPID }
        let admin = try PostgresConnection(configuration: TestDatabase.adminConfiguration())
        try admin.query("select pg_terminate_backend(\(Int(firstPID)))")
        Thread.sleep(forTimeInterval: 0.1)
        let (secondPID, answer) = try pool.withConnection { connection in
            (connection.backendPID, try connection.query("select 1").rows[0].decode(Int.self, at: 0))
        }
        #expect(secondPID != firstPID)
        #expect(answer == 1)
    }

    @Test func readsAreRetriedOnAFreshConnectionWhenTheOldOneDiedUnnoticed() throws {
        let pool = PostgresPool(
            configuration: try TestDatabase.adminConfiguration(), pool: .init(maxConnections: 1))
        let identity = PostgresIdentity(role: "postgres")
        let firstPID = try pool.execute(as: identity, readOnly: true, ["select pg_backend_pid()"])[0]
            .rows[0].decode(Int.self, at: 0)
        let admin = try PostgresConnection(configuration: TestDatabase.adminConfiguration())
        try admin.query("select pg_terminate_backend(\(firstPID))")
        let secondPID = try pool.execute(as: identity, readOnly: true, ["select pg_backend_pid()"])[0]
            .rows[0].decode(Int.self, at: 0)
        #expect(secondPID != firstPID)
    }
}

/// A value shared between test threads.
final class Mutexed<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
