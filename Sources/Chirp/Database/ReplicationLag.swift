/// How far a streaming replica trails its primary, in time: the primary's write position is
/// sampled every few hundred milliseconds, and a replica that has replayed up to position R
/// lacks what the primary had written by the first sample past R. Its lag is the time since
/// then (zero once it has replayed everything sampled), to within one sampling interval.
struct PrimaryPositions {
    /// Oldest first; positions never decrease.
    private var samples: [(at: ContinuousClock.Instant, position: UInt64)] = []
    /// How long samples are kept: a replica further behind than this is simply too far behind.
    let window: Duration

    init(window: Duration = .seconds(60)) {
        self.window = window
    }

    mutating func record(_ position: UInt64, at now: ContinuousClock.Instant) {
        samples.append((now, max(position, samples.last?.position ?? 0)))
        let oldest = now - window
        if let keep = samples.firstIndex(where: { $0.at >= oldest }), keep > 0 { samples.removeFirst(keep) }
    }

    /// The lag of a replica that has replayed up to `replayed`; nil before the first sample.
    func lag(ofReplayed replayed: UInt64, at now: ContinuousClock.Instant) -> Duration? {
        guard let latest = samples.last else { return nil }
        if replayed >= latest.position { return .zero }
        // The first sample the replica has not reached: the oldest write it lacks is older.
        guard let first = samples.first(where: { $0.position > replayed }) else { return .zero }
        return now - first.at
    }

    /// `16/B374D848`, as `pg_current_wal_lsn()::text` writes a WAL position.
    static func position(_ text: String) -> UInt64? {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let high = UInt64(parts[0], radix: 16), let low = UInt64(parts[1], radix: 16),
              high <= UInt64(UInt32.max), low <= UInt64(UInt32.max)
        else { return nil }
        return high << 32 | low
    }
}
