import Foundation
import Synchronization

/// The search budget of each client address, counted in this instance's memory: a search
/// must not become a write on the primary, as the database-counted budgets of sign-in are.
/// Behind a load balancer each instance counts its own share, as public search APIs do.
///
/// Fixed windows aligned to the clock (every address's window ends at the same moment, when
/// every count is dropped at once), and at most `capacity` addresses counted per window. A
/// new address beyond that takes the place of an arbitrary counted one: whoever cycles
/// through many addresses can make the counts forget some clients (who then get more than
/// their budget), never make the memory grow or refuse anyone.
final class SearchRateLimiter: Sendable {
    let limit: RateLimit
    let capacity: Int
    private let now: @Sendable () -> Double
    private let counts: Mutex<Counts>

    private struct Counts {
        var window = Int.min
        var hits: [String: Int] = [:]
    }

    /// - Parameter now: the wall clock in seconds since 1970 (replaced in tests).
    init(limit: RateLimit, capacity: Int, now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.limit = limit
        self.capacity = max(1, capacity)
        self.now = now
        counts = Mutex(Counts())
    }

    /// Counts one search from `address` and returns the budget's state after it.
    func count(_ address: String) -> RateLimitCheck.Outcome {
        let time = now()
        let length = Double(max(1, limit.windowSeconds))
        let window = Int((time / length).rounded(.down))
        let hits = counts.withLock { counts in
            if counts.window != window {
                counts.window = window
                counts.hits.removeAll(keepingCapacity: true)
            }
            if let index = counts.hits.index(forKey: address) {
                counts.hits.values[index] += 1
                return counts.hits.values[index]
            }
            if counts.hits.count >= capacity { counts.hits.remove(at: counts.hits.startIndex) }
            counts.hits[address] = 1
            return 1
        }
        let reset = max(1, Int((Double(window + 1) * length - time).rounded(.up)))
        return RateLimitCheck.Outcome(limit: limit, hits: hits, resetSeconds: reset)
    }

    /// How many addresses are counted in the current window.
    var countedAddresses: Int {
        counts.withLock { $0.hits.count }
    }
}
