import Synchronization

/// A clock a test sets by hand, for the in-memory windows (`SearchRateLimiter`, `SearchEstimates`).
final class TestClock: Sendable {
    private let seconds: Mutex<Double>
    init(seconds: Double) { self.seconds = Mutex(seconds) }
    func set(_ value: Double) { seconds.withLock { $0 = value } }
    var read: @Sendable () -> Double { { [self] in seconds.withLock { $0 } } }
}
