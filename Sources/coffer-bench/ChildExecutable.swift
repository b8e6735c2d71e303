import Foundation

/// The executable the benchmark's child processes run: this one, unless
/// `COFFER_BENCH_CHILD_EXECUTABLE` names another (under valgrind, `/proc/self/exe` is valgrind's
/// own tool, so PROFILING.md sets it to the binary being profiled).
enum ChildExecutable {
    static let environmentVariable = "COFFER_BENCH_CHILD_EXECUTABLE"

    /// The path of the executable to start.
    /// - Throws: ``BenchError`` when this executable's path cannot be read.
    static func url() throws -> URL {
        if let path = ProcessInfo.processInfo.environment[environmentVariable], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        do {
            return URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        } catch {
            throw BenchError(.io, "cannot find this executable (/proc/self/exe) to run a child process")
        }
    }
}
