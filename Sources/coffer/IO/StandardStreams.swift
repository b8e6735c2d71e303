import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Unbuffered writes to the process's standard output and error, and terminal checks.
///
/// Progress and errors go to standard error with `write(2)` so they interleave correctly with
/// each other; command output uses `print` or an ``OutputFile``.
enum StandardStreams {
    /// Writes `text` to standard error; failures are ignored (there is nowhere left to report them).
    static func writeError(_ text: String) {
        writeAll(Array(text.utf8), to: STDERR_FILENO)
    }

    /// Writes `text` to standard output, after flushing what `print` buffered.
    static func writeOutput(_ text: String) {
        fflushStandardOutput()
        writeAll(Array(text.utf8), to: STDOUT_FILENO)
    }

    /// Whether standard error is a terminal (progress bars then redraw in place).
    static var errorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Whether standard input is a terminal (passphrases can then be prompted for).
    static var inputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Flushes the C standard output buffer that `print` fills.
    static func fflushStandardOutput() {
        fflush(nil)
    }

    /// Writes every byte, retrying after interruptions; returns false when the descriptor fails.
    @discardableResult
    static func writeAll(_ bytes: some Collection<UInt8>, to descriptor: Int32) -> Bool {
        let contiguous = Array(bytes)
        return contiguous.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                guard let base = buffer.baseAddress else { return true }
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }
}
