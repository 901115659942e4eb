import Synchronization

/// Whether this instance wants new traffic: withdrawn when it starts shutting down, so that
/// `/readyz` answers 503 while requests in flight (and those already on their way) are served.
final class Readiness: Sendable {
    private let ready = Atomic<Bool>(true)

    var isReady: Bool { ready.load(ordering: .relaxed) }

    func withdraw() {
        ready.store(false, ordering: .relaxed)
    }
}
