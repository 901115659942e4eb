import Synchronization

/// Faults a test (or the fault suite) injects into one pool, to reach the paths that only a
/// broken network reaches otherwise. Production code never arms one; an unarmed fault costs
/// one atomic load per write.
package final class PostgresFaults: Sendable {
    /// Where an armed fault cuts a write's connection.
    package enum Point: Int {
        /// After the server committed, before the results are read: the "stored, but answered
        /// 503" case.
        case afterCommit
        /// After the statements went out without their `COMMIT`, before the transaction's id
        /// came back.
        case beforeTransactionID
    }

    /// The writes still to come: each of the lowest `skipped` passes, each of the next
    /// `broken` loses its connection. Counted down from the top in one word.
    private let plan = Atomic<Int>(0)
    private let broken = Atomic<Int>(0)
    private let point = Atomic<Int>(Point.afterCommit.rawValue)

    package init() {}

    /// After `skipping` writes, the next `count` write transactions lose their connection at
    /// `point`.
    package func breakWrites(next count: Int, skipping: Int = 0, at point: Point) {
        self.point.store(point.rawValue, ordering: .sequentiallyConsistent)
        broken.store(count, ordering: .sequentiallyConsistent)
        plan.store(skipping + count, ordering: .sequentiallyConsistent)
    }

    /// `breakWrites` after the server committed.
    package func breakAfterCommit(next count: Int, skipping: Int = 0) {
        breakWrites(next: count, skipping: skipping, at: .afterCommit)
    }

    /// Whether this write, now at `point`, is one to break; counts it if faults are armed there.
    func take(_ point: Point) -> Bool {
        guard self.point.load(ordering: .relaxed) == point.rawValue else { return false }
        var left = plan.load(ordering: .relaxed)
        while left > 0 {
            let (exchanged, original) = plan.compareExchange(expected: left, desired: left - 1, ordering: .sequentiallyConsistent)
            if exchanged { return left <= broken.load(ordering: .sequentiallyConsistent) }
            left = original
        }
        return false
    }
}
