import Foundation
import Observability
import Synchronization

/// A thread that enforces the whole-request deadline a few times a second.
final class DeadlineWatchdog: Sendable {
    private let stopped = Atomic<Bool>(false)

    init(deadlines: ConnectionDeadlines, limit: Duration, logger: Logger) {
        // Check four times per limit (so cut-offs land within 25% of it), at most ten times a second.
        let tick = max(limit / 4, .milliseconds(100))
        let thread = Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                Thread.sleep(forTimeInterval: min(tick.seconds, 1))
                let cut = deadlines.cutOverdue(limit: limit)
                if cut > 0 {
                    logger.warning("request deadline exceeded", ["connections": .int(cut)])
                }
            }
        }
        thread.name = "http-deadlines"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
    }
}
