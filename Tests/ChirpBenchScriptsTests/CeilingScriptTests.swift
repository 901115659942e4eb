import Chirp
@testable import ChirpBenchScripts
import EventLoops
import Foundation
import Glibc
import Postgres
import TestSupport
import Testing

/// The benchmark's ceilings are only meaningful if pgbench can run them: every generated
/// script runs one transaction per client against a small seeded database, as the service's
/// login role.
@Suite struct CeilingScriptTests {
    @Test(.timeLimit(.minutes(2)))
    func everyCeilingScriptRunsInPgbench() async throws {
        let database = try await TestDatabase.migrated()
        let sizes = SeedSizes(seed: 1, users: 300, posts: 2_000, likes: 4_000, follows: 1_000, comments: 1_000)
        try await database.adminPool.withSession { try await SeedGenerator(sizes: sizes).run(in: $0, hasher: PasswordHasher()) }
        // pgbench's prepared mode parses each statement before the transaction takes its role:
        // the benchmark grants the login role this much for it (bench/run).
        try await database.execute("grant usage on schema app to chirp_service")
        let (timestamp, id) = try await database.execute(
            PostgresQuery("select created_at, id from posts order by created_at desc, id desc offset 1000 limit 1")
                .onlyRow { try $0.decode((PostgresTimestamp, PostgresUUID).self) })
        // A search's statement timeout only cancels, it changes no work: a generous one, since a
        // test suite's load on this machine can hold a fresh connection's first search past the
        // service's half second.
        var search = SearchLimits()
        search.statementTimeout = .seconds(30)
        let scripts = try CeilingScripts.all(seed: 1, deepPosition: KeysetPosition(timestamp: timestamp, id: id), search: search)
        #expect(scripts.map(\.name).sorted() == [
            "comment", "comments", "explore", "feed", "feed_deep", "follow", "followers", "global", "like",
            "notifications", "offset_deep", "post", "profile", "search", "unfollow", "unlike", "unread_count", "user_posts",
        ])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ceilings-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        // The viewers' sessions first, as a superuser (bench/measure.py does the same); twice, as
        // a second benchmark run on the same database would.
        let sessions = CeilingScripts.viewerSessions(seed: 1)
        let sessionsFile = folder.appendingPathComponent("viewer_sessions.sql")
        try sessions.text.write(to: sessionsFile, atomically: true, encoding: .utf8)
        for _ in 0..<2 {
            var arguments = ["-n", "-M", "extended", "-t", "1", "-f", sessionsFile.path, "-D", "bench_users=64"]
            for (name, value) in sessions.definitions { arguments += ["-D", "\(name)=\(value)"] }
            let admin = database.admin
            arguments += ["--host=\(admin.setting("host") ?? "127.0.0.1")", "--port=\(admin.setting("port") ?? "5432")",
                          "--username=\(admin.setting("user") ?? "postgres")", database.name]
            let command = arguments
            #expect(try await BlockingWork.run { Self.run("pgbench", command) } == 0, "viewer_sessions")
        }
        #expect(try await database.scalar("select count(*)::int from refresh_tokens where family_id = md5('session:1:' || 64)::uuid", as: Int.self) == 1)

        for script in scripts {
            let file = folder.appendingPathComponent("\(script.name).sql")
            try script.text.write(to: file, atomically: true, encoding: .utf8)
            var arguments = ["-n", "-M", "prepared", "-c", "2", "-t", "1", "-f", file.path,
                             "-D", "bench_users=64", "-D", "bench_posts=100"]
            for (name, value) in script.definitions { arguments += ["-D", "\(name)=\(value)"] }
            let service = try database.service
            arguments += ["--host=\(service.setting("host") ?? "127.0.0.1")", "--port=\(service.setting("port") ?? "5432")",
                          "--username=\(service.setting("user") ?? "chirp_service")", service.setting("dbname") ?? database.name]
            let command = arguments
            #expect(try await BlockingWork.run { Self.run("pgbench", command) } == 0, "\(script.name)")
        }
    }

    /// Runs a program from PATH and waits with `waitpid` (Foundation's `Process` can wait
    /// forever on a test thread); blocks, so it runs on `BlockingWork`.
    private static func run(_ program: String, _ arguments: [String]) -> Int32 {
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawnp(&pid, program, nil, nil, argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status >> 8) & 0xff
    }
}
