/// Durations as the logs and metrics write them.
extension Duration {
    /// Milliseconds, rounded to microseconds.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        let micros = Double(seconds) * 1_000_000 + Double(attoseconds / 1_000_000_000_000)
        return micros / 1000
    }

    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
