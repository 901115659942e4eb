/// The Prometheus text exposition format, version 0.0.4.
extension Metrics {
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public func render() -> String {
        let snapshot = merged()
        let described = descriptions.withLock { $0 }
        var out = ""

        out.append("# HELP http_requests_total Requests answered, by route pattern, method and status.\n")
        out.append("# TYPE http_requests_total counter\n")
        let requestKeys = snapshot.requests.keys.sorted {
            ($0.route, $0.method, $0.status) < ($1.route, $1.method, $1.status)
        }
        for key in requestKeys {
            let labels = Self.labels([("route", key.route), ("method", key.method), ("status", String(key.status))])
            out.append("http_requests_total\(labels) \(snapshot.requests[key] ?? 0)\n")
        }

        out.append("# HELP http_request_duration_seconds Time from a complete request to its response, by route pattern.\n")
        out.append("# TYPE http_request_duration_seconds histogram\n")
        for route in snapshot.durations.keys.sorted() {
            guard let histogram = snapshot.durations[route] else { continue }
            var cumulative: UInt64 = 0
            for (index, bound) in buckets.enumerated() {
                cumulative += histogram.counts[index]
                let labels = Self.labels([("route", route), ("le", Self.number(bound))])
                out.append("http_request_duration_seconds_bucket\(labels) \(cumulative)\n")
            }
            let routeLabel = Self.labels([("route", route)])
            out.append("http_request_duration_seconds_bucket\(Self.labels([("route", route), ("le", "+Inf")])) \(histogram.count)\n")
            out.append("http_request_duration_seconds_sum\(routeLabel) \(Self.number(histogram.sum))\n")
            out.append("http_request_duration_seconds_count\(routeLabel) \(histogram.count)\n")
        }

        out.append("# HELP http_requests_in_flight Requests being handled now.\n")
        out.append("# TYPE http_requests_in_flight gauge\n")
        out.append("http_requests_in_flight \(requestsInFlight)\n")

        let counterNames = Set(snapshot.counters.keys.map(\.name)).sorted()
        for name in counterNames {
            out.append("# HELP \(name) \(Self.escapeHelp(snapshot.counterHelp[name] ?? name))\n")
            out.append("# TYPE \(name) counter\n")
            let keys = snapshot.counters.keys.filter { $0.name == name }
                .sorted { Self.labels($0.labels) < Self.labels($1.labels) }
            for key in keys {
                out.append("\(name)\(Self.labels(key.labels)) \(Self.number(snapshot.counters[key] ?? 0))\n")
            }
        }

        // Gauges are read now, outside the registry lock.
        var seen = Set<String>()
        for gauge in described.gauges {
            if seen.insert(gauge.name).inserted {
                out.append("# HELP \(gauge.name) \(Self.escapeHelp(gauge.help))\n")
                out.append("# TYPE \(gauge.name) gauge\n")
            }
            out.append("\(gauge.name)\(Self.labels(gauge.labels)) \(Self.number(gauge.read()))\n")
        }
        return out
    }

    static func labels(_ labels: [String: String]) -> String {
        Self.labels(labels.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    static func labels(_ pairs: [(String, String)]) -> String {
        guard !pairs.isEmpty else { return "" }
        let body = pairs.map { "\($0.0)=\"\(escapeLabelValue($0.1))\"" }.joined(separator: ",")
        return "{\(body)}"
    }

    /// A label value escapes backslash, double quote and newline.
    static func escapeLabelValue(_ value: String) -> String {
        escape(value, quote: true)
    }

    /// Help text escapes only backslash and newline: its quotes stay as they are.
    static func escapeHelp(_ text: String) -> String {
        escape(text, quote: false)
    }

    private static func escape(_ text: String, quote: Bool) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out.append("\\\\")
            case "\"" where quote: out.append("\\\"")
            case "\n": out.append("\\n")
            default: out.append(character)
            }
        }
        return out
    }

    /// Integers without a fraction, everything else as Swift prints doubles; NaN and infinities
    /// in Prometheus spelling.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
