@testable import Chirp
import EventLoops
import Foundation
import Observability
import Postgres
import Synchronization
import TestSupport
import Testing

/// Explore snapshots ranked off the request path: the refresher ranks one when the newest is
/// older than three quarters of its interval, and requests then read that one instead of
/// ranking their own. The request goes through the router: HTTP is not the point here.
@Suite struct ExploreRefresherTests {
    @Test func requestsReadTheRefreshersSnapshotInsteadOfRankingTheirOwn() async throws {
        let app = try await TestService.started(over: .router)
        let author = try await app.signUp("ranked")
        try await app.createPost("to be ranked", by: author)
        try await app.database.execute("delete from explore_snapshots")

        try await ExploreRefresher.refresh(on: app.service.pool)
        #expect(try await app.database.scalar("select count(*) from explore_snapshots", as: Int.self) == 1)
        try await ExploreRefresher.refresh(on: app.service.pool)  // still fresh: nothing to do
        #expect(try await app.database.scalar("select count(*) from explore_snapshots", as: Int.self) == 1)

        let page = try await app.client.get("/v1/explore")
        #expect(page.status == 200)
        #expect(page.json["items"].array.count == 1)
        #expect(try await app.database.scalar("select count(*) from explore_snapshots", as: Int.self) == 1)

        // Past three quarters of the interval, the refresher ranks a new one beside the old.
        try await app.database.execute("update explore_snapshots set created_at = now() - interval '16 seconds'")
        try await ExploreRefresher.refresh(on: app.service.pool)
        #expect(try await app.database.scalar("select count(*) from explore_snapshots", as: Int.self) == 2)
        #expect(try await app.client.get("/v1/explore").status == 200)
        #expect(try await app.database.scalar("select count(*) from explore_snapshots", as: Int.self) == 2)
    }

    @Test func aPeriodicJobRunsOnItsLoopUntilStoppedAndNeverBeforeItStarts() async throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        let runs = Atomic<Int>(0)
        let onLoop = Atomic<Bool>(true)
        let job = PeriodicJob(name: "ticking", interval: .milliseconds(10), loop: loop, logger: Logger(label: "test")) {
            runs.add(1, ordering: .relaxed)
            if EventLoop.current !== loop { onLoop.store(false, ordering: .relaxed) }
        }
        try await Task.sleep(for: .milliseconds(60))
        #expect(runs.load(ordering: .relaxed) == 0)  // not started: no run

        job.start()
        job.start()  // a second start changes nothing
        #expect(await eventually { runs.load(ordering: .relaxed) >= 3 })
        #expect(onLoop.load(ordering: .relaxed) == true)

        job.stop()
        try await Task.sleep(for: .milliseconds(30))  // a run under way when stopped may finish
        let afterStop = runs.load(ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(100))
        #expect(runs.load(ordering: .relaxed) == afterStop)
    }

    @Test func aPeriodicJobKeepsRunningAfterAFailedRunAndLogsIt() async throws {
        let runs = Atomic<Int>(0)
        let logged = Mutex<[String]>([])
        let logger = Logger(label: "test", sink: { line in logged.withLock { $0.append(line) } })
        let job = PeriodicJob(name: "flaky", interval: .milliseconds(20), loop: TestCluster.eventLoop, logger: logger) {
            if runs.add(1, ordering: .relaxed).newValue == 1 { throw Flaky() }
        }
        job.start()
        defer { job.stop() }
        for _ in 0..<200 where runs.load(ordering: .relaxed) < 3 {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(runs.load(ordering: .relaxed) >= 3)
        #expect(logged.withLock { $0.contains { $0.contains(#""msg":"flaky failed""#) } })
    }
}

private struct Flaky: Error {}
