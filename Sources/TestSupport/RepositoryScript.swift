import EventLoops
import Foundation
import Glibc

/// Runs one of the repository's scripts (`scripts/pg stop DIR`, …) and waits for it with
/// `waitpid`, on a thread made for blocking: Foundation's `Process.waitUntilExit` depends on a
/// run loop and can wait forever on a test thread.
public enum RepositoryScript {
    /// The script's exit status; -1 when it could not be started.
    @discardableResult
    public static func run(_ arguments: String...) async throws -> Int32 {
        try await run(arguments)
    }

    @discardableResult
    public static func run(_ arguments: [String]) async throws -> Int32 {
        try await BlockingWork.run { spawn(arguments) }
    }

    private static func spawn(_ arguments: [String]) -> Int32 {
        let script = TestCluster.repository.appendingPathComponent(arguments[0]).path
        let argv = ([script] + arguments.dropFirst()).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, script, nil, nil, argv, environ)
        guard spawned == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status >> 8) & 0xff
    }
}
