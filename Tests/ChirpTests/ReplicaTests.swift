import Chirp
import Foundation
import Postgres
import TestSupport
import Synchronization
import Testing

/// Reads on streaming replicas (`scripts/test` starts a cluster with two: one that keeps up, one
/// that replays each commit 2 s late), with read-your-writes across instances and replicas that
/// fail.
/// Serialized: one test stops and starts the replica the others read from.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ReplicaTests {
    /// A value of the service's `/metrics`, 0 when the series has not appeared yet.
    private func metric(_ name: String, _ labels: String = "", on client: TestClient) async throws -> Double {
        let prefix = name + labels + " "
        let text = try await client.get("/metrics").text
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return 0 }
        return Double(line.dropFirst(prefix.count)) ?? 0
    }

    private func replicaReads(on client: TestClient) async throws -> Double {
        try await metric("db_reads_total", #"{server="replica"}"#, on: client)
    }

    /// Waits until `condition` holds, polling; whether it did within `limit`.
    private func eventually(within limit: Duration = .seconds(10), _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }

    private func replicaIsFit(on client: TestClient) async throws -> Bool {
        let text = try await client.get("/metrics").text
        return text.split(separator: "\n").contains { $0.hasPrefix("db_replica_fit{") && $0.hasSuffix(" 1") }
    }

    /// A database in the replicated cluster.
    private static func database() async throws -> TestDatabase {
        try await TestDatabase.migrated(cluster: TestCluster.replicatedURL)
    }

    /// The replica that keeps up. Its lag bound is generous: with every suite writing on two
    /// cores, replay can fall a second behind, and these tests are about routing, not lag.
    private static func onReplica(_ configuration: inout ChirpConfiguration) throws {
        configuration.replicas = [try TestCluster.onReplica(configuration.database)]
        configuration.replicaMaxLag = .seconds(30)
    }

    @Test func readsGoToAFitReplicaAndWritesToThePrimary() async throws {
        let app = try TestService.started(on: try await Self.database(), over: .socket, configure: Self.onReplica)
        #expect(try await eventually { try await replicaIsFit(on: app.client) }, "the replica is probed and found fit")
        let (alice, bob) = try await app.signUp("alice", "bob")
        let post = try await app.createPost("on the primary", by: alice)
        let before = try await replicaReads(on: app.client)
        // Bob has written nothing since signing up: once the replica has his account, his reads go
        // there, like anonymous ones.
        #expect(try await eventually {
            try await app.client.get("/v1/posts/\(post)", token: bob.accessToken).status == 200
        }, "the post reaches the replica")
        for _ in 0..<5 {
            #expect(try await app.client.get("/v1/posts").status == 200)
            #expect(try await app.client.get("/v1/users/\(alice.username)").status == 200)
        }
        #expect(try await replicaReads(on: app.client) >= before + 10)
        // A write is never sent to a replica (it would fail there: read-only transaction).
        try await app.like(post, by: bob)
        #expect(try await app.client.get("/v1/posts/\(post)", token: bob.accessToken).json["likedByMe"].bool == true)
    }

    /// Through either of two instances, a writer sees their write at once although the
    /// replica both read from replays 2 s late; another user reading there sees it later.
    @Test func aWriterReadsTheirWritesThroughAnotherInstanceWhileTheReplicaLags() async throws {
        let delayed: (inout ChirpConfiguration) throws -> Void = {
            $0.replicas = [try TestCluster.onDelayedReplica($0.database)]
            $0.replicaMaxLag = .seconds(30)  // 2 s behind, and still used
        }
        let first = try TestService.started(on: try await Self.database(), over: .socket, configure: delayed)
        let second = try TestServiceInstance(on: first.database, over: .socket, configure: delayed)
        #expect(try await eventually { try await replicaIsFit(on: second.client) })
        let (alice, bob) = try await first.signUp("alice", "bob")
        // Both sign-ups replayed (an anonymous read goes to the replica, and Bob signed up last):
        // from then on Bob, who writes nothing below, reads the replica.
        #expect(try await eventually { try await second.client.get("/v1/users/\(bob.username)").status == 200 })

        // A session started a moment ago, which the replica has not replayed: checked on the
        // primary, it holds for a read that the replica answers.
        let carol = try await first.signUp("carol")
        #expect(try await second.client.get("/v1/me", token: carol.accessToken).status == 200)

        let post = try await first.createPost("seen at once by its author", by: alice)
        let behindBefore = try await metric("db_replica_behind_total", on: second.client)
        let own = try await second.client.get("/v1/posts/\(post)", token: alice.accessToken)
        #expect(own.status == 200, "the author reads their post through the other instance")
        let feed = try await second.client.get("/v1/feed", token: alice.accessToken)
        #expect(feed.json["items"][0]["id"].string == post)
        try await first.client.patch("/v1/me", json: ["bio": "written on the first"], token: alice.accessToken).requiring(200, "profile edit")
        #expect(try await second.client.get("/v1/me", token: alice.accessToken).json["bio"].string == "written on the first")
        #expect(try await metric("db_replica_behind_total", on: second.client) > behindBefore,
                "the replica had not replayed the writes: the primary answered")

        // Bob has written nothing since: he reads the replica, and sees the post once it is replayed.
        let replicaBefore = try await replicaReads(on: second.client)
        #expect(try await eventually { try await second.client.get("/v1/posts/\(post)", token: bob.accessToken).status == 200 })
        #expect(try await replicaReads(on: second.client) > replicaBefore)

        // Bob logs out on the first instance: his token is refused through the second at once,
        // although the replica will show his session live for 2 s more.
        try await first.client.post("/v1/auth/logout", json: ["refreshToken": bob.refreshToken], token: bob.accessToken)
            .requiring(204, "logout")
        let ended = try await second.client.get("/v1/posts/\(post)", token: bob.accessToken)
        #expect(ended.status == 401)
        #expect(ended.json["detail"].string == "the session has ended; sign in again")
    }

    /// The delayed replica replays each commit 2 s late: while the primary keeps writing it
    /// trails by about that much, past a 500 ms bound, and is skipped; once the writes stop it
    /// catches up and is used again.
    @Test func aReplicaLaggingPastTheBoundIsSkippedUntilItCatchesUp() async throws {
        let app = try TestService.started(on: try await Self.database(), over: .socket) {
            $0.replicas = [try TestCluster.onDelayedReplica($0.database)]
            $0.replicaMaxLag = .milliseconds(500)
        }
        let alice = try await app.signUp("alice")
        #expect(try await eventually { try await replicaIsFit(on: app.client) }, "fit while the primary is idle")
        // Stopped by a flag, not by cancelling the task: cancelling a task whose URLSession
        // request is in flight can deadlock FoundationNetworking on Linux (the cancel handler
        // and the completion each wait for the other's lock).
        let stop = Atomic<Bool>(false)
        let writing = Task {
            for index in 0..<60 where !stop.load(ordering: .relaxed) {
                _ = try? await app.createPost("keeping the primary busy \(index)", by: alice)
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        defer { stop.store(true, ordering: .relaxed) }
        #expect(try await eventually { try await !replicaIsFit(on: app.client) }, "skipped while it trails by 2 s")
        let primaryBefore = try await metric("db_reads_total", #"{server="primary"}"#, on: app.client)
        #expect(try await app.client.get("/v1/posts").status == 200)
        #expect(try await metric("db_reads_total", #"{server="primary"}"#, on: app.client) == primaryBefore + 1)
        stop.store(true, ordering: .relaxed)
        _ = await writing.value
        #expect(try await eventually { try await replicaIsFit(on: app.client) }, "used again once it has caught up")
    }

    @Test func aReplicaThatGoesDownIsSkippedAndUsedAgainWhenBack() async throws {
        let folder = try #require(TestCluster.replicaFolder, "scripts/test sets CHIRP_TEST_REPLICA_FOLDER")
        let port = try #require(TestCluster.onReplica(TestCluster.adminConfiguration(cluster: TestCluster.replicatedURL)).setting("port"))
        let app = try TestService.started(on: try await Self.database(), over: .socket, configure: Self.onReplica)
        #expect(try await eventually { try await replicaIsFit(on: app.client) })
        let alice = try await app.signUp("alice")
        let post = try await app.createPost("still readable", by: alice)
        #expect(try await eventually { try await app.client.get("/v1/posts/\(post)").status == 200 })

        #expect(try await RepositoryScript.run("scripts/pg", "stop", folder) == 0)
        do {
            // Every read answers while the replica is gone: the failed reads fall back.
            for _ in 0..<20 {
                #expect(try await app.client.get("/v1/posts/\(post)").status == 200)
                #expect(try await app.client.get("/v1/feed", token: alice.accessToken).status == 200)
            }
            #expect(try await eventually { try await !replicaIsFit(on: app.client) }, "skipped within about a second")
            let primaryBefore = try await metric("db_reads_total", #"{server="primary"}"#, on: app.client)
            #expect(try await app.client.get("/v1/posts").status == 200)
            #expect(try await metric("db_reads_total", #"{server="primary"}"#, on: app.client) == primaryBefore + 1)
        }
        #expect(try await RepositoryScript.run("scripts/pg", "start", folder, port) == 0)
        #expect(try await eventually { try await replicaIsFit(on: app.client) }, "used again once it answers")
        let replicaBefore = try await replicaReads(on: app.client)
        #expect(try await app.client.get("/v1/posts").status == 200)
        #expect(try await replicaReads(on: app.client) == replicaBefore + 1)
    }
}
