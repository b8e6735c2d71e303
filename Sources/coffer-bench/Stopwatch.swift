/// The one clock of the harness: every workload, C or Coffer, is timed by wrapping its call in `measure`.
enum Stopwatch {
    /// Runs `body` once and returns its result with the elapsed monotonic time in seconds.
    /// - Throws: whatever `body` throws.
    static func measure<T>(_ body: () throws -> T) rethrows -> (value: T, seconds: Double) {
        let clock = ContinuousClock()
        let start = clock.now
        let value = try body()
        let elapsed = clock.now - start
        let parts = elapsed.components
        return (value, Double(parts.seconds) + Double(parts.attoseconds) * 1e-18)
    }

    /// The median of `samples` (the mean of the middle two for an even count); 0 for no samples.
    /// - Complexity: O(n log n).
    static func median(_ samples: [Double]) -> Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
