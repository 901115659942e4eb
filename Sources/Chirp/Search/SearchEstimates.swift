import Foundation
import Synchronization

/// The planner's estimate of each recent post search term's matches, kept in this instance's
/// memory for a minute. A post search's statement asks for the estimate with
/// `app.planned_rows` (an `EXPLAIN` of its own: parsing, planning and formatting), a third to
/// a half of a common word's first page at the database; a term searched again within the
/// minute passes the estimate it got instead (`SearchQueries.posts`). The estimate changes only
/// when `ANALYZE` runs, minutes apart at the least, and only picks the page's shape and labels
/// a total as estimated, so one a minute old is as good as a new one. Posts are readable by
/// every role alike, so a term's estimate is the same for every viewer.
///
/// Fixed windows aligned to the clock (every estimate is dropped at once when one ends) and at
/// most `capacity` terms per window: a new term beyond that takes the place of an arbitrary
/// one, so whoever searches many distinct terms costs the other terms an `EXPLAIN`, never
/// memory.
final class SearchEstimates: Sendable {
    static let lifetimeSeconds = 60
    static let defaultCapacity = 10_000

    let capacity: Int
    private let now: @Sendable () -> Double
    private let state: Mutex<State>

    private struct State {
        var window = Int.min
        var estimates: [String: Int] = [:]
    }

    /// - Parameter now: the wall clock in seconds since 1970 (replaced in tests).
    init(capacity: Int = defaultCapacity, now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.capacity = max(1, capacity)
        self.now = now
        state = Mutex(State())
    }

    /// The estimate remembered for `term` in this window, if any.
    func estimate(of term: String) -> Int? {
        let window = currentWindow()
        return state.withLock { state in
            state.window == window ? state.estimates[term] : nil
        }
    }

    /// Remembers `estimate` for `term` until the window ends.
    func remember(_ estimate: Int, of term: String) {
        let window = currentWindow()
        state.withLock { state in
            if state.window != window {
                state.window = window
                state.estimates.removeAll(keepingCapacity: true)
            }
            if state.estimates[term] == nil && state.estimates.count >= capacity {
                state.estimates.remove(at: state.estimates.startIndex)
            }
            state.estimates[term] = estimate
        }
    }

    private func currentWindow() -> Int {
        Int((now() / Double(Self.lifetimeSeconds)).rounded(.down))
    }
}
