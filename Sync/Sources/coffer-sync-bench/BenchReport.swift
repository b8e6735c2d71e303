import CofferSync
import Foundation

/// Prints the benchmark's lines: `#` information lines and one line per figure, in the style of
/// the core's `coffer-bench` (`id key=value …`).
final class BenchReport {
    /// Prints the run's header: date, CPUs, server, sizes and the machine's load.
    func header(admin: SyncServerAddress, settings: BenchSettings) {
        let date = ISO8601DateFormatter().string(from: Date())
        info("coffer-sync-bench date=\(date) cpus=\(ProcessInfo.processInfo.activeProcessorCount)")
        info("server=\(admin.server) database=\(admin.database) tls=\(admin.tls ? "on" : "off")")
        info(
            "options s1_rows=\(settings.rows) s2_samples=\(settings.samples) s3_devices=\(settings.devices) "
                + "s3_rate=\(settings.rate) s3_seconds=\(settings.duration) clock=ContinuousClock")
        load("start")
    }

    /// Prints an information line (`# text`).
    func info(_ text: String) {
        print("# \(text)")
        fflush(nil)
    }

    /// Prints a figure line: `CofferSync:<id> key=value …`.
    func figure(_ id: String, _ fields: [(String, String)]) {
        print((["CofferSync:\(id)"] + fields.map { "\($0.0)=\($0.1)" }).joined(separator: " "))
        fflush(nil)
    }

    /// Prints the machine's load averages (1, 5, 15 minutes) from /proc/loadavg.
    func load(_ label: String) {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        let parts = text.split(separator: " ").prefix(3)
        info("load \(label) " + (parts.count == 3 ? "1m=\(parts[0]) 5m=\(parts[1]) 15m=\(parts[2])" : "unknown"))
    }

    /// Seconds with six decimals.
    static func seconds(_ duration: Duration) -> String {
        String(format: "%.6f", duration.seconds)
    }

    /// Milliseconds with two decimals.
    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.2f", duration.seconds * 1_000)
    }

    /// A rate with no decimals.
    static func rate(_ count: Int, _ duration: Duration) -> String {
        duration.seconds > 0 ? String(format: "%.0f", Double(count) / duration.seconds) : "inf"
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
