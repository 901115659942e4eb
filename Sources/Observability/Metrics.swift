#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A small metrics registry: request counters and latency histograms filled by
/// `MetricsMiddleware`, counters and gauges the application adds, and the Prometheus text
/// exposition of all of them (`render()`).
///
/// Every request records into it, from many threads at once, so counts are kept in stripes
/// chosen by thread and merged only when rendered: behind one shared lock, threads would queue
/// on it in the kernel on every request.
public final class Metrics: Sendable {
    /// Latency buckets in seconds, from sub-millisecond cache hits to multi-second stalls.
    public static let defaultDurationBuckets: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    struct RequestKey: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    struct Histogram {
        /// Per-bucket (not cumulative) counts; the last slot is +Inf.
        var counts: [UInt64]
        var sum: Double = 0
        var count: UInt64 = 0

        mutating func record(_ seconds: Double, inSlot slot: Int) {
            counts[slot] += 1
            sum += seconds
            count += 1
        }

        mutating func merge(_ other: Histogram) {
            for index in counts.indices where index < other.counts.count {
                counts[index] += other.counts[index]
            }
            sum += other.sum
            count += other.count
        }
    }

    struct CounterKey: Hashable {
        var name: String
        var labels: [String: String]
    }

    struct Counts {
        var requests: [RequestKey: UInt64] = [:]
        var durations: [String: Histogram] = [:]
        var counters: [CounterKey: Double] = [:]
        var counterHelp: [String: String] = [:]
    }

    final class Stripe: Sendable {
        let counts = Mutex(Counts())
    }

    struct Gauge {
        var name: String
        var help: String
        var labels: [String: String]
        var read: @Sendable () -> Double
    }

    struct Descriptions {
        var gauges: [Gauge] = []
    }

    let buckets: [Double]
    private let stripes: [Stripe]
    let descriptions = Mutex(Descriptions())
    private let inFlight = Atomic<Int>(0)

    public init(durationBuckets: [Double] = Metrics.defaultDurationBuckets) {
        buckets = durationBuckets.sorted()
        stripes = (0..<16).map { _ in Stripe() }
    }

    /// The calling thread's stripe.
    private var stripe: Stripe {
        let mixed = UInt64(UInt(bitPattern: Int(bitPattern: pthread_self()))) &* 0x9E37_79B9_7F4A_7C15
        return stripes[Int(mixed >> 60) % stripes.count]
    }

    /// Counts one finished request. `route` must be a pattern (bounded), never a raw path.
    public func observeRequest(route: String, method: String, status: Int, seconds: Double) {
        let slot = buckets.firstIndex { seconds <= $0 } ?? buckets.count
        let bucketCount = buckets.count
        stripe.counts.withLock { counts in
            counts.requests[RequestKey(route: route, method: method, status: status), default: 0] += 1
            // One access, in place through `default:`: reading the histogram out and storing it
            // back would copy its bucket array on every request.
            counts.durations[route, default: Histogram(counts: Array(repeating: 0, count: bucketCount + 1))]
                .record(seconds, inSlot: slot)
        }
    }

    /// Adds `amount` to an application counter, created on first use.
    public func increment(_ name: String, help: String, labels: [String: String] = [:], by amount: Double = 1) {
        stripe.counts.withLock { counts in
            counts.counters[CounterKey(name: name, labels: labels), default: 0] += amount
            if counts.counterHelp[name] == nil { counts.counterHelp[name] = help }
        }
    }

    /// Registers a gauge read at every scrape, such as a connection pool's in-use count.
    /// `read` runs outside the registry's locks and may take locks of its own.
    public func registerGauge(
        _ name: String,
        help: String,
        labels: [String: String] = [:],
        _ read: @escaping @Sendable () -> Double
    ) {
        descriptions.withLock { $0.gauges.append(Gauge(name: name, help: help, labels: labels, read: read)) }
    }

    /// A request entered the middleware chain; `requestLeft` balances it.
    public func requestEntered() {
        inFlight.add(1, ordering: .relaxed)
    }

    /// A request left the middleware chain with its response.
    public func requestLeft() {
        inFlight.subtract(1, ordering: .relaxed)
    }

    /// Requests currently inside the middleware chain.
    public var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }

    /// All stripes added together.
    func merged() -> Counts {
        var total = Counts()
        for stripe in stripes {
            let counts = stripe.counts.withLock { $0 }
            total.requests.merge(counts.requests, uniquingKeysWith: +)
            total.counters.merge(counts.counters, uniquingKeysWith: +)
            total.counterHelp.merge(counts.counterHelp) { first, _ in first }
            for (route, histogram) in counts.durations {
                if var existing = total.durations[route] {
                    existing.merge(histogram)
                    total.durations[route] = existing
                } else {
                    total.durations[route] = histogram
                }
            }
        }
        return total
    }
}
