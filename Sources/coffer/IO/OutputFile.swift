import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A buffered byte sink: standard output, or a file written beside its destination and
/// renamed into place only when complete.
///
/// An output file that is not committed (an error, Ctrl-C) removes its temporary file, so an
/// interrupted export never leaves a partial file at the destination. Files are created with
/// mode 0600: exports hold the database's plaintext.
final class OutputFile {
    private let descriptor: Int32
    private let destination: URL?
    private let temporary: URL?
    private var buffer: [UInt8] = []
    private var finished = false
    private static let flushThreshold = 256 * 1024

    /// Writes to standard output.
    static func standardOutput() -> OutputFile {
        OutputFile(descriptor: STDOUT_FILENO, destination: nil, temporary: nil)
    }

    /// Starts a new file that will appear at `url` on ``commit()``.
    /// - Throws: ``CLIError`` `.alreadyExists` when `url` exists and `replacing` is false, `.io`.
    static func creating(_ url: URL, replacing: Bool) throws -> OutputFile {
        if !replacing && FileManager.default.fileExists(atPath: url.path) {
            throw CLIError(.alreadyExists, "\(url.path) already exists (use --force to replace it)")
        }
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).coffer-partial-\(UUID().uuidString)")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.posixError("cannot create a file beside", url) }
        return OutputFile(descriptor: descriptor, destination: url, temporary: temporary)
    }

    private init(descriptor: Int32, destination: URL?, temporary: URL?) {
        self.descriptor = descriptor
        self.destination = destination
        self.temporary = temporary
    }

    deinit {
        if !finished { discard() }
    }

    /// Appends bytes, writing them out when the buffer is large.
    /// - Throws: ``CLIError`` `.io`.
    func write(_ bytes: some Sequence<UInt8>) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    /// Appends a string as UTF-8.
    /// - Throws: ``CLIError`` `.io`.
    func write(_ text: String) throws {
        try write(text.utf8)
    }

    /// Writes out everything buffered.
    /// - Throws: ``CLIError`` `.io`.
    func flush() throws {
        guard !buffer.isEmpty else { return }
        if descriptor == STDOUT_FILENO { StandardStreams.fflushStandardOutput() }
        guard StandardStreams.writeAll(buffer, to: descriptor) else {
            throw Self.posixError("cannot write", destination ?? URL(fileURLWithPath: "standard output"))
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, and for a file: fsyncs it and renames it into place.
    /// - Throws: ``CLIError`` `.io`.
    func commit() throws {
        try flush()
        finished = true
        guard let destination, let temporary else { return }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw Self.posixError("cannot flush", destination)
        }
        guard rename(temporary.path, destination.path) == 0 else {
            let error = Self.posixError("cannot move the new file to", destination)
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }

    /// Abandons the output: a file's temporary file is closed and removed; standard output is
    /// flushed. Does nothing after ``commit()``, which cleans up after itself when it fails.
    func discard() {
        guard !finished else { return }
        finished = true
        guard let temporary else {
            try? flush()
            return
        }
        buffer.removeAll()
        close(descriptor)
        try? FileManager.default.removeItem(at: temporary)
    }

    private static func posixError(_ what: String, _ url: URL) -> CLIError {
        let code = errno
        return CLIError(.io, "\(what) \(url.path): \(String(cString: strerror(code)))")
    }
}
