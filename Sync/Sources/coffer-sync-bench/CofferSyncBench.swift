import ArgumentParser
import CofferSync
import Foundation
import Logging

/// The sync benchmark: creates a space and devices on a PostgreSQL server and runs the sync
/// workloads S1 (initial sync), S2 (one-row latency) and S3 (eight devices writing steadily).
@main
struct CofferSyncBench: AsyncParsableCommand {
    /// The command's name and help.
    static let configuration = CommandConfiguration(
        commandName: "coffer-sync-bench",
        abstract: "Measures CofferSync against a PostgreSQL server (workloads S1, S2, S3).",
        discussion: """
            The admin role (CREATEROLE, schema applied with `coffer-sync init-server`) creates a \
            space and its devices; device databases live in a temporary directory that is removed \
            at the end, and the space is dropped. Sync/scripts/bench.sh starts a throwaway server \
            and runs this against it.
            """)

    /// The admin role's URL; the password may come from COFFER_SYNC_BENCH_ADMIN_URL only.
    @Option(name: .customLong("admin-url"), help: "Admin URL (default: $COFFER_SYNC_BENCH_ADMIN_URL).")
    var adminURL: String?

    /// The workloads to run, by id.
    @Option(name: .customLong("workloads"), help: "Comma-separated workload ids (S1,S2,S3).")
    var workloads = "S1,S2,S3"

    /// How many rows S1 syncs.
    @Option(name: .customLong("rows"), help: "S1: rows to sync (default 100000).")
    var rows: Int?

    /// How many commits S2 times.
    @Option(name: .customLong("samples"), help: "S2: one-row commits to time (default 60).")
    var samples: Int?

    /// How long S3 writes, in seconds.
    @Option(name: .customLong("duration"), help: "S3: seconds of writing (default 60).")
    var duration: Double?

    /// How many devices S3 runs.
    @Option(name: .customLong("devices"), help: "S3: devices (default 8).")
    var devices: Int?

    /// The rows each S3 device commits per second.
    @Option(name: .customLong("rate"), help: "S3: rows per second per device (default 10).")
    var rate: Double?

    /// The postmaster's process id, for the server CPU figure of S3.
    @Option(
        name: .customLong("server-pid"),
        help: "The postmaster's pid (default: $COFFER_SYNC_BENCH_SERVER_PID, else the only postmaster found in /proc).")
    var serverPID: Int32?

    /// Makes every workload tiny, for a quick check.
    @Flag(name: .customLong("smoke"), help: "Tiny sizes, for a quick check.")
    var smoke = false

    /// Runs the chosen workloads and prints one line per figure.
    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let url = adminURL ?? environment["COFFER_SYNC_BENCH_ADMIN_URL"] else {
            throw ValidationError("give --admin-url or set COFFER_SYNC_BENCH_ADMIN_URL")
        }
        let admin = try SyncServerAddress(url: url)
        let ids = Set(workloads.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).uppercased() })
        let unknown = ids.subtracting(["S1", "S2", "S3"])
        guard unknown.isEmpty else { throw ValidationError("unknown workloads: \(unknown.sorted())") }
        let settings = BenchSettings(
            rows: rows ?? (smoke ? 500 : 100_000), samples: samples ?? (smoke ? 5 : 60),
            duration: duration ?? (smoke ? 3 : 60), devices: devices ?? (smoke ? 3 : 8), rate: rate ?? 10)
        guard settings.rows > 0, settings.samples > 0, settings.duration > 0, settings.devices > 1, settings.rate > 0
        else { throw ValidationError("sizes must be positive, and S3 needs at least two devices") }
        let pid = serverPID ?? environment["COFFER_SYNC_BENCH_SERVER_PID"].flatMap { Int32($0) }

        var logger = Logger(label: "coffer.sync.bench")
        logger.logLevel = .warning
        let report = BenchReport()
        report.header(admin: admin, settings: settings)
        // Each workload has its own space, so that S2 and S3 devices do not first pull S1's rows.
        for id in ["S1", "S2", "S3"] where ids.contains(id) {
            let bench = try BenchSpace(admin: admin, logger: logger)
            do {
                switch id {
                case "S1": try await InitialSync(space: bench, report: report, rows: settings.rows).run()
                case "S2": try await Latency(space: bench, report: report, samples: settings.samples).run()
                default:
                    try await SteadyWriters(space: bench, report: report, settings: settings, serverPID: pid).run()
                }
            } catch {
                await bench.tearDown()
                throw error
            }
            await bench.tearDown()
        }
        report.load("end")
    }
}

/// The sizes of a run.
struct BenchSettings {
    /// S1's row count.
    var rows: Int
    /// S2's sample count.
    var samples: Int
    /// S3's seconds of writing.
    var duration: Double
    /// S3's device count.
    var devices: Int
    /// S3's rows per second per device.
    var rate: Double
}
