public import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension KeyFile {
    /// Creates a new data key, wraps it under `passphrase` and writes a new key file at `url`.
    ///
    /// Refuses to replace an existing file: overwriting a key file destroys the only wrapped copy
    /// of a database key.
    ///
    /// - Returns: The key file and the new data key, to key the new database with.
    /// - Throws: `fileExists`, `io`, and the errors of ``init(wrapping:passphrase:label:parameters:)``.
    /// - Complexity: One key derivation, one small file write with two `fsync`s.
    public static func create(
        at url: URL, passphrase: some DataProtocol, label: String = KeyFile.defaultLabel,
        parameters: KDFParameters = .default
    ) throws(KeyFileError) -> (KeyFile, DataKey) {
        let dataKey = DataKey.random()
        let keyFile = try KeyFile(wrapping: dataKey, passphrase: passphrase, label: label, parameters: parameters)
        try keyFile.write(to: url, replacingExisting: false)
        return (keyFile, dataKey)
    }

    /// Reads and validates the key file at `url`; nothing is decrypted.
    ///
    /// - Throws: `io` when the file cannot be read (the message names the path), and the errors
    ///   of ``init(contents:)``, with the path attached.
    /// - Complexity: Reads at most ``maximumFileSize`` + 1 bytes.
    public static func read(from url: URL) throws(KeyFileError) -> KeyFile {
        let path = url.path
        let contents: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            contents = try handle.read(upToCount: maximumFileSize + 1) ?? Data()
        } catch {
            throw KeyFileError(.io, path: path, reason: "cannot read: \(Self.describe(error))")
        }
        do {
            return try KeyFile(contents: contents)
        } catch {
            throw error.at(path)
        }
    }

    /// Writes the key file to `url` atomically, replacing any file there, with mode `0600`.
    ///
    /// The bytes go to a temporary file in the same directory, which is flushed with `fsync`,
    /// then renamed over `url`; the directory is flushed too, so after a crash the path holds
    /// either the old file or the new one, complete. No temporary file is left behind on failure.
    ///
    /// - Throws: `io` naming the path and the system error.
    /// - Complexity: One small file write with two `fsync`s.
    public func write(to url: URL) throws(KeyFileError) {
        try write(to: url, replacingExisting: true)
    }

    /// Writes atomically; with `replacingExisting == false` the final step is `link`, which
    /// fails if `url` exists, instead of `rename`.
    func write(to url: URL, replacingExisting: Bool) throws(KeyFileError) {
        let path = url.path
        let directory = url.deletingLastPathComponent().path
        let bytes = try encoded()
        let suffix = Self.hex(Self.randomBytes(8))
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(suffix).tmp").path

        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.posixError("cannot create a temporary file", path: temporary) }
        var published = false
        defer {
            if !published { unlink(temporary) }
        }
        do {
            defer { close(fd) }
            // The umask can only narrow the mode, but a fchmod makes 0600 independent of it.
            guard fchmod(fd, 0o600) == 0 else { throw Self.posixError("cannot set mode 0600", path: temporary) }
            try Self.writeAll(bytes, to: fd, path: temporary)
            guard fsync(fd) == 0 else { throw Self.posixError("cannot flush", path: temporary) }
        }
        if replacingExisting {
            guard rename(temporary, path) == 0 else { throw Self.posixError("cannot rename into place", path: path) }
        } else {
            guard link(temporary, path) == 0 else {
                if errno == EEXIST {
                    throw KeyFileError(.fileExists, path: path, reason: "a file already exists; refusing to replace it")
                }
                throw Self.posixError("cannot link into place", path: path)
            }
            unlink(temporary)
        }
        published = true
        try Self.syncDirectory(directory)
    }

    private static func writeAll(_ bytes: Data, to fd: Int32, path: String) throws(KeyFileError) {
        let failed: Bool = bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                guard let base = buffer.baseAddress else { return true }
                let written = systemWrite(fd, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                offset += written
            }
            return false
        }
        if failed { throw posixError("cannot write", path: path) }
    }

    private static func syncDirectory(_ directory: String) throws(KeyFileError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw posixError("cannot open the directory to flush it", path: directory) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw posixError("cannot flush the directory", path: directory) }
    }

    /// An `io` error with `errno`'s text, read at once.
    private static func posixError(_ what: String, path: String) -> KeyFileError {
        let code = errno
        return KeyFileError(.io, path: path, reason: "\(what): \(String(cString: strerror(code))) (errno \(code))")
    }

    private static func describe(_ error: any Error) -> String {
        (error as NSError).localizedDescription
    }
}

/// POSIX `write`, named apart from ``KeyFile/write(to:)`` which would shadow it inside the type.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
