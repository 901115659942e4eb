import Chirp
import Foundation
import Glibc
import HTTP
import Postgres

/// `chirp serve|migrate|seed`.
enum Command: String, CaseIterable {
    case serve, migrate, seed

    static let usage = """
        usage: chirp <command>
          serve     run the HTTP API (DATABASE_URL, JWT_SECRET, PORT, …)
          migrate   apply sql/migrations (MIGRATION_DATABASE_URL or DATABASE_URL)
          seed      load generated data into an empty database (MIGRATION_DATABASE_URL or DATABASE_URL)
                    [--seed N] [--users N] [--posts N] [--likes N] [--follows N] [--comments N] [--words N] [--most-follows N]
                    [--benchmark]  (10k users, 1M posts, 5M likes, 300k follows, 500k comments)
        """

    /// Runs the command; ends the process when it is done.
    func run(_ environment: Environment, arguments: [String]) -> Never {
        switch self {
        case .serve:
            // On the main thread, where it waits for a stop signal, with no task ever started.
            exitWhenDone { try Self.serve(environment) }
        case .migrate, .seed:
            Task {
                await exitWhenDone {
                    if self == .migrate {
                        try await migrate(environment)
                    } else {
                        try await seed(environment, arguments)
                    }
                }
            }
            dispatchMain()
        }
    }

    private static func serve(_ environment: Environment) throws {
        // Block the stop signals before any thread exists (threads inherit the mask), then
        // wait for them here, so no handler runs on an arbitrary thread.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        pthread_sigmask(SIG_BLOCK, &signals, nil)

        let configuration = try environment.serviceConfiguration()
        let service = try ChirpService(configuration: configuration)
        do {
            try service.start()
        } catch let error as HTTPServerError where error.isAddressInUse {
            throw PortTaken(error: error)
        }
        report("serving on http://\(configuration.http.host):\(service.port)")
        var received: Int32 = 0
        sigwait(&signals, &received)
        service.logger.info("shutting down", ["signal": .int(Int(received))])
        // Serve on while the load balancer notices /readyz failing, then drain.
        if service.configuration.shutdownDelay > .zero {
            service.stopBeingReady()
            let (seconds, attoseconds) = service.configuration.shutdownDelay.components
            var delay = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            var left = timespec()
            while nanosleep(&delay, &left) != 0 && errno == EINTR { delay = left }
        }
        service.shutdown()
    }

    private func migrate(_ environment: Environment) async throws {
        let migrations = try PostgresMigration.load(from: environment.migrationsDirectory)
        let applied = try await environment.migrationSession { try await PostgresMigrator().migrate(migrations, in: $0) }
        report(applied.isEmpty
            ? "database is up to date (\(migrations.count) migrations)"
            : "applied \(applied.count) migration(s): \(applied.joined(separator: ", "))")
    }

    private func seed(_ environment: Environment, _ arguments: [String]) async throws {
        let sizes = try SeedOptions.parse(arguments)
        let started = Date()
        let seeded = try await environment.migrationSession { session in
            try await SeedGenerator(sizes: sizes).run(in: session, hasher: PasswordHasher()) { step in
                report("seeded \(step)")
            }
        }
        report(seeded
            ? "seeded \(sizes.users) users, \(sizes.posts) posts in \(Int(Date().timeIntervalSince(started))) s (users demo1…demo\(sizes.users), password \(SeedGenerator.password))"
            : "database already has users; nothing seeded")
    }
}

/// `PORT` is held by another process, most often an earlier `chirp serve`.
struct PortTaken: Error, CustomStringConvertible {
    let error: HTTPServerError
    var description: String { "\(error): another process holds the port (stop it, or set PORT to serve on another)" }
}

/// Runs `body`, then exits: with 0, or reporting its error with 1.
func exitWhenDone(_ body: () throws -> Void) -> Never {
    do {
        try body()
        exit(0)
    } catch {
        report("error: \(error)")
        exit(1)
    }
}

func exitWhenDone(_ body: () async throws -> Void) async -> Never {
    do {
        try await body()
        exit(0)
    } catch {
        report("error: \(error)")
        exit(1)
    }
}

func report(_ line: String) {
    FileHandle.standardError.write(Data("chirp: \(line)\n".utf8))
}
