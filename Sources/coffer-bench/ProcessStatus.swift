import Foundation

/// Facts about this process and machine read from `/proc`, for the report's `RSS` and `#` lines.
enum ProcessStatus {
    /// The peak resident set size (`VmHWM`) of this process in KiB, or nil where `/proc` does not have it.
    static func peakResidentKiB() -> Int? {
        statusField("VmHWM:")
    }

    private static func statusField(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            return Int(line.dropFirst(name.count).filter(\.isNumber))
        }
        return nil
    }

    /// The CPU model name from `/proc/cpuinfo`, or nil where it is not available.
    static func cpuModel() -> String? {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
        for line in info.split(separator: "\n") where line.hasPrefix("model name") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// CPU time (user + system) the calling thread has used, in seconds.
    static func threadCPUSeconds() -> Double {
        cpuSeconds(CLOCK_THREAD_CPUTIME_ID)
    }

    /// CPU time (user + system) all threads of this process have used, in seconds.
    static func processCPUSeconds() -> Double {
        cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
    }

    private static func cpuSeconds(_ clock: clockid_t) -> Double {
        var time = timespec()
        guard clock_gettime(clock, &time) == 0 else { return 0 }
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }

    /// The number of processors this process may use.
    static var processorCount: Int { ProcessInfo.processInfo.activeProcessorCount }
}
