import Chirp
import Foundation
import Glibc
import Postgres

/// `chirp serve|migrate|seed`.
enum Command: String, CaseIterable {
    case serve, migrate, seed
    case benchScripts = "bench-scripts"

    static let usage = """
        usage: chirp <command>
          serve     run the HTTP API (DATABASE_URL, JWT_SECRET, PORT, …)
          migrate   apply sql/migrations (MIGRATION_DATABASE_URL or DATABASE_URL)
          seed      load generated data into an empty database (MIGRATION_DATABASE_URL or DATABASE_URL)
                    [--seed N] [--users N] [--posts N] [--likes N] [--follows N] [--comments N]
                    [--benchmark]  (10k users, 1M posts, 5M likes, 300k follows, 500k comments)
          bench-scripts DIR --seed N --deep MICROSECONDS UUID
                    write the pgbench ceiling scripts bench/run compares endpoints with
        """

    func run(_ environment: Environment, arguments: [String]) throws {
        switch self {
        case .serve: try serve(environment)
        case .migrate: try migrate(environment)
        case .seed: try seed(environment, arguments)
        case .benchScripts: try BenchScripts.write(arguments)
        }
    }

    private func serve(_ environment: Environment) throws {
        // Block the stop signals before any thread exists (threads inherit the mask), then
        // wait for them here, so no handler runs on an arbitrary thread.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        pthread_sigmask(SIG_BLOCK, &signals, nil)

        let service = try ChirpService(configuration: try environment.serviceConfiguration())
        try service.start()
        var received: Int32 = 0
        sigwait(&signals, &received)
        service.logger.info("shutting down", ["signal": .int(Int(received))])
        service.shutdown()
    }

    private func migrate(_ environment: Environment) throws {
        let connection = try PostgresConnection(configuration: try environment.migrationDatabase())
        let migrations = try PostgresMigration.load(from: environment.migrationsDirectory)
        let applied = try PostgresMigrator().migrate(migrations, on: connection)
        report(applied.isEmpty
            ? "database is up to date (\(migrations.count) migrations)"
            : "applied \(applied.count) migration(s): \(applied.joined(separator: ", "))")
    }

    private func seed(_ environment: Environment, _ arguments: [String]) throws {
        let sizes = try SeedOptions.parse(arguments)
        let connection = try PostgresConnection(configuration: try environment.migrationDatabase())
        let started = Date()
        let seeded = try SeedGenerator(sizes: sizes).run(on: connection, hasher: PasswordHasher()) { step in
            report("seeded \(step)")
        }
        report(seeded
            ? "seeded \(sizes.users) users, \(sizes.posts) posts in \(Int(Date().timeIntervalSince(started))) s (users demo1…demo\(sizes.users), password \(SeedGenerator.password))"
            : "database already has users; nothing seeded")
    }
}

func report(_ line: String) {
    FileHandle.standardError.write(Data("chirp: \(line)\n".utf8))
}
