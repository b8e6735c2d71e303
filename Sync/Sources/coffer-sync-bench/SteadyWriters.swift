import CofferSync
import Foundation

/// S3: several devices each commit one row at a fixed rate for a while; each device's upload
/// queue is sampled every second, and the server's CPU time is read over the run.
struct SteadyWriters {
    /// The space the devices belong to.
    let space: BenchSpace
    /// Where the figures go.
    let report: BenchReport
    /// Devices, rate and duration.
    let settings: BenchSettings
    /// The postmaster's pid, if known.
    let serverPID: Int32?

    /// Runs the workload and prints its figures.
    func run() async throws {
        var devices: [BenchDevice] = []
        for _ in 0..<settings.devices { devices.append(try await space.newDevice()) }
        for device in devices { await device.engine.start() }
        for device in devices { try await device.engine.syncNow() }

        let perDevice = max(1, Int((settings.duration * settings.rate).rounded()))
        let period = Duration.seconds(1 / settings.rate)
        let server = (serverPID ?? ProcessCPU.onlyPostmaster()).map { ProcessCPU(pid: $0) }
        let client = ProcessCPU(pid: getpid())
        let clock = ContinuousClock()
        let serverBefore = server?.seconds()
        let clientBefore = client.seconds()
        let start = clock.now

        let (lateness, samples) = try await withThrowingTaskGroup(
            of: Duration.self, returning: (Duration, [[Int]]).self
        ) {
            group in
            for (index, device) in devices.enumerated() {
                group.addTask {
                    var worst = Duration.zero
                    for number in 0..<perDevice {
                        let due = start + period * number
                        try await Task.sleep(until: due, clock: .continuous)
                        worst = max(worst, clock.now - due)
                        try device.write(writer: index, first: number, count: 1)
                    }
                    return worst
                }
            }
            let samples = try await sampleQueues(devices, start: start, seconds: Int(settings.duration.rounded(.up)))
            var worst = Duration.zero
            for try await late in group { worst = max(worst, late) }
            return (worst, samples)
        }
        let writing = clock.now - start
        let serverAfter = server?.seconds()
        let clientAfter = client.seconds()

        let expected = perDevice * devices.count
        let converged = try await waitUntil(timeout: .seconds(300), interval: .milliseconds(100)) {
            for device in devices where try device.count() != expected { return false }
            return true
        }
        let drain = clock.now - start - writing
        guard converged else { throw BenchFailure(description: "S3: the devices did not converge within 300 s") }

        report.figure(
            "S3-writes",
            [
                ("devices", "\(devices.count)"), ("rows_per_device", "\(perDevice)"), ("rows", "\(expected)"),
                ("ops_per_s", BenchReport.rate(expected, writing)), ("total_s", BenchReport.seconds(writing)),
                ("worst_lateness_ms", BenchReport.milliseconds(lateness)),
            ])
        for (index, series) in samples.enumerated() {
            report.figure("S3-queue-d\(index)", Self.queueFields(series))
        }
        report.figure("S3-queue", Self.queueFields(samples.flatMap(\.self), devices: devices.count, series: samples))
        report.figure(
            "S3-drain",
            [("total_s", BenchReport.seconds(drain)), ("note", "after_the_last_commit_until_all_converged")])
        if let serverBefore, let serverAfter, let pid = server?.pid {
            let cpu = serverAfter - serverBefore
            report.figure(
                "S3-server-cpu",
                [
                    ("cpu_s", String(format: "%.2f", cpu)), ("wall_s", String(format: "%.2f", writing.seconds)),
                    ("pct_of_one_core", String(format: "%.1f", 100 * cpu / writing.seconds)),
                    ("postmaster_pid", "\(pid)"),
                ])
        } else {
            report.info("S3-server-cpu unknown (give --server-pid or COFFER_SYNC_BENCH_SERVER_PID)")
        }
        if let clientBefore, let clientAfter {
            let cpu = clientAfter - clientBefore
            report.figure(
                "S3-client-cpu",
                [
                    ("cpu_s", String(format: "%.2f", cpu)), ("wall_s", String(format: "%.2f", writing.seconds)),
                    ("pct_of_one_core", String(format: "%.1f", 100 * cpu / writing.seconds)),
                    ("note", "this_process(all_\(devices.count)_devices)"),
                ])
        }
        report.load("after S3")
    }

    /// Each device's queue length once a second for `seconds` seconds.
    func sampleQueues(_ devices: [BenchDevice], start: ContinuousClock.Instant, seconds: Int) async throws
        -> [[Int]]
    {
        var samples = Array(repeating: [Int](), count: devices.count)
        for second in 1...max(1, seconds) {
            try await Task.sleep(until: start + .seconds(second), clock: .continuous)
            for (index, device) in devices.enumerated() {
                samples[index].append(await device.engine.currentStatus().queued)
            }
        }
        return samples
    }

    /// first, last, max and the means of the first and last quarters of a queue series; it
    /// grew when the last quarter's mean exceeds the first's by more than ten rows per device.
    static func queueFields(_ values: [Int], devices: Int = 1, series: [[Int]]? = nil) -> [(String, String)] {
        let all = series ?? [values]
        let length = all.map(\.count).min() ?? 0
        guard length > 0 else { return [("samples", "0")] }
        let totals = (0..<length).map { second in all.map { $0[second] }.reduce(0, +) }
        let quarter = max(1, length / 4)
        let firstMean = Double(totals.prefix(quarter).reduce(0, +)) / Double(quarter)
        let lastMean = Double(totals.suffix(quarter).reduce(0, +)) / Double(quarter)
        let grew = lastMean - firstMean > 10 * Double(devices)
        return [
            ("samples", "\(length)"), ("first", "\(totals[0])"), ("last", "\(totals[length - 1])"),
            ("max", "\(totals.max() ?? 0)"), ("first_quarter_mean", String(format: "%.1f", firstMean)),
            ("last_quarter_mean", String(format: "%.1f", lastMean)), ("grew", grew ? "yes" : "no"),
        ]
    }
}
