import Chirp
import Foundation
import Glibc
import Postgres

/// `chirp serve|migrate|seed`.
enum Command: String, CaseIterable {
    case serve, migrate, seed

    static let usage = """
        usage: chirp <command>
          serve     run the HTTP API (DATABASE_URL, JWT_SECRET, PORT, …)
          migrate   apply sql/migrations (MIGRATION_DATABASE_URL or DATABASE_URL)
          seed      load demo data into an empty database (MIGRATION_DATABASE_URL or DATABASE_URL)
        """

    func run(_ environment: Environment) throws {
        switch self {
        case .serve: try serve(environment)
        case .migrate: try migrate(environment)
        case .seed: try seed(environment)
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

        let service = ChirpService(configuration: try environment.serviceConfiguration())
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

    private func seed(_ environment: Environment) throws {
        let connection = try PostgresConnection(configuration: try environment.migrationDatabase())
        let seeded = try DemoSeed().run(on: connection, hasher: PasswordHasher())
        report(seeded
            ? "seeded demo data (users demo1…demo50, password \(DemoSeed.password))"
            : "database already has users; nothing seeded")
    }
}

func report(_ line: String) {
    FileHandle.standardError.write(Data("chirp: \(line)\n".utf8))
}
