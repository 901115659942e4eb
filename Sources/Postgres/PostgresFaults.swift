import Synchronization

/// Faults a test (or the fault suite) injects into one pool, to reach the paths that only a
/// broken network reaches otherwise. Production code never arms one; an unarmed fault costs
/// one atomic load per write.
package final class PostgresFaults: Sendable {
    /// The writes still to come: each of the lowest `skipped` passes, each of the next
    /// `broken` loses its connection. Counted down from the top in one word.
    private let plan = Atomic<Int>(0)
    private let broken = Atomic<Int>(0)

    package init() {}

    /// After `skipping` writes, the next `count` write transactions lose their connection after
    /// the server committed them and before their results are read: the "stored, but answered
    /// 503" case.
    package func breakAfterCommit(next count: Int, skipping: Int = 0) {
        broken.store(count, ordering: .sequentiallyConsistent)
        plan.store(skipping + count, ordering: .sequentiallyConsistent)
    }

    /// Whether this write is one to break; counts it.
    func takeCommitToBreak() -> Bool {
        var left = plan.load(ordering: .relaxed)
        while left > 0 {
            let (exchanged, original) = plan.compareExchange(expected: left, desired: left - 1, ordering: .sequentiallyConsistent)
            if exchanged { return left <= broken.load(ordering: .sequentiallyConsistent) }
            left = original
        }
        return false
    }
}
