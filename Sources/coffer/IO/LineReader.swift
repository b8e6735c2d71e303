import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a file descriptor line by line with a small buffer, so inputs of any size stream in
/// constant memory.
///
/// One reader serves standard input for a whole command: a passphrase read with
/// `--passphrase-stdin` takes the first line, and whatever follows (a value for `put`, the rows
/// for `import-json`) stays buffered for the next read.
final class LineReader {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private let label: String
    private var buffer: [UInt8] = []
    private var start = 0
    private var reachedEnd = false
    private static let chunkSize = 64 * 1024

    /// Reads standard input.
    static func standardInput() -> LineReader {
        LineReader(descriptor: STDIN_FILENO, ownsDescriptor: false, label: "standard input")
    }

    /// Opens `url` for reading.
    /// - Throws: ``CLIError`` `.notFound` or `.io`.
    convenience init(url: URL) throws {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw CLIError(
                code == ENOENT ? .notFound : .io,
                "cannot open \(url.path): \(String(cString: strerror(code)))")
        }
        self.init(descriptor: descriptor, ownsDescriptor: true, label: url.path)
    }

    private init(descriptor: Int32, ownsDescriptor: Bool, label: String) {
        self.descriptor = descriptor
        self.ownsDescriptor = ownsDescriptor
        self.label = label
    }

    deinit {
        wipe()
        if ownsDescriptor { close(descriptor) }
    }

    /// The next line without its `\n` (and a `\r` before it), or nil at the end of input.
    /// - Throws: ``CLIError`` `.io` when reading fails.
    func readLine() throws -> [UInt8]? {
        var scanned = 0  // bytes after `start` already known to hold no newline
        while true {
            if let newline = buffer[(start + scanned)...].firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(buffer[start..<newline])
                start = newline + 1
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return line
            }
            scanned = buffer.count - start
            if reachedEnd {
                guard start < buffer.count else { return nil }
                let line = Array(buffer[start...])
                start = buffer.count
                return line
            }
            compact()
            try fill()
        }
    }

    /// Everything left in the input.
    /// - Throws: ``CLIError`` `.io` when reading fails.
    func readToEnd() throws -> Data {
        while !reachedEnd { try fill() }
        let rest = Data(buffer[start...])
        start = buffer.count
        return rest
    }

    /// Overwrites the buffer, which may hold a passphrase line already handed out.
    func wipe() {
        for index in buffer.indices { buffer[index] = 0 }
    }

    /// Drops consumed bytes (zeroing them first: they may be a passphrase).
    private func compact() {
        guard start > 0 else { return }
        for index in 0..<start { buffer[index] = 0 }
        buffer.removeFirst(start)
        start = 0
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: Self.chunkSize)
        let count = chunk.withUnsafeMutableBytes { raw -> Int in
            guard let base = raw.baseAddress else { return 0 }
            while true {
                let result = read(descriptor, base, raw.count)
                if result < 0 && errno == EINTR { continue }
                return result
            }
        }
        guard count >= 0 else {
            let code = errno
            throw CLIError(.io, "cannot read \(label): \(String(cString: strerror(code)))")
        }
        if count == 0 {
            reachedEnd = true
        } else {
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}
