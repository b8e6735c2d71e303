import CofferSync
import Foundation

/// S2: one-row commits on device A, each timed until device B's database holds the row (B's
/// engine woken by LISTEN/NOTIFY; B observed through its database's commit stream).
struct Latency {
    /// The space the devices belong to.
    let space: BenchSpace
    /// Where the figures go.
    let report: BenchReport
    /// The commits to time.
    let samples: Int

    /// Runs the workload and prints its figures.
    func run() async throws {
        // A long poll interval, so that every sample is carried by NOTIFY.
        let a = try await space.newDevice(pollInterval: .seconds(600))
        let b = try await space.newDevice(pollInterval: .seconds(600))
        await a.engine.start()
        await b.engine.start()
        try await a.engine.syncNow()
        try await b.engine.syncNow()

        var latencies: [Duration] = []
        for number in 0..<samples {
            latencies.append(try await sample(a: a, b: b, number: number))
            try await Task.sleep(for: .milliseconds(100))
        }
        let sorted = latencies.sorted()
        func percentile(_ p: Double) -> Duration {
            sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
        }
        let median = percentile(0.5)
        report.figure(
            "S2-latency",
            [
                ("samples", "\(sorted.count)"), ("median_ms", BenchReport.milliseconds(median)),
                ("p90_ms", BenchReport.milliseconds(percentile(0.9))),
                ("min_ms", BenchReport.milliseconds(sorted[0])),
                ("max_ms", BenchReport.milliseconds(sorted[sorted.count - 1])),
                ("target_median_ms", "200"), ("met", median <= .milliseconds(200) ? "yes" : "no"),
            ])
        report.load("after S2")
    }

    /// Commits row `number` on A and returns the time until B's database holds it.
    func sample(a: BenchDevice, b: BenchDevice, number: Int) async throws -> Duration {
        // Subscribed before the commit, so that no commit of B is missed.
        let changes = b.database.changes
        let clock = ContinuousClock()
        let start = clock.now
        try a.write(writer: 0, first: number, count: 1)
        let seen: ContinuousClock.Instant? = try await withThrowingTaskGroup(of: ContinuousClock.Instant?.self) {
            group in
            group.addTask {
                if try b.has(writer: 0, number: number) { return clock.now }
                for await _ in changes {
                    if try b.has(writer: 0, number: number) { return clock.now }
                }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: .seconds(30))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let seen else {
            throw BenchFailure(description: "S2: row \(number) did not reach device B within 30 s")
        }
        return seen - start
    }
}
