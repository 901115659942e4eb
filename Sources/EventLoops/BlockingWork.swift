import Dispatch

/// Where work that blocks a thread (password hashing, opening a database connection) runs,
/// so that neither an event loop nor Swift's cooperative pool ever waits on it.
public enum BlockingWork {
    private static let queue = DispatchQueue(label: "chirp.blocking-work", attributes: .concurrent)

    /// Runs `body` on a thread made for blocking and resumes the caller with its result.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
