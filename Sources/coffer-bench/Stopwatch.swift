import CBaseline
import Synchronization

/// The one clock of the harness: every workload, C or Coffer, is timed by wrapping its call in `measure`.
enum Stopwatch {
    /// Numbers the timed regions in run order, for the callgrind dumps `measure` asks for.
    private static let regions = Atomic<Int>(0)

    /// Runs `body` once and returns its result with the elapsed monotonic time in seconds.
    ///
    /// Under callgrind (`--collect-atstart=no`) only the timed regions are collected, each in its own dump named
    /// `region-<n>` in run order; outside valgrind the markers cost nothing measurable.
    /// - Throws: whatever `body` throws.
    static func measure<T>(_ body: () throws -> T) rethrows -> (value: T, seconds: Double) {
        let region = regions.add(1, ordering: .relaxed).newValue
        let clock = ContinuousClock()
        cb_profile_region_begin()
        let start = clock.now
        let value: T
        do {
            value = try body()
        } catch {
            cb_profile_region_end(Int32(truncatingIfNeeded: region))
            throw error
        }
        let elapsed = clock.now - start
        cb_profile_region_end(Int32(truncatingIfNeeded: region))
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
