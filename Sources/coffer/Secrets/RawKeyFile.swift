import Coffer
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file holding exactly 32 key bytes, used by SQLCipher without key derivation.
///
/// Anyone who can read the file can open the database: it is created with mode 0600, and
/// ``KeyFile`` envelopes (a passphrase-wrapped key) are the better choice for people.
enum RawKeyFile {
    /// The key bytes in the file at `url`.
    /// - Throws: ``CLIError`` `.notFound`/`.io` when it cannot be read, `.keyProblem` when it does
    ///   not hold exactly 32 bytes.
    static func read(from url: URL) throws -> Data {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            let exists = FileManager.default.fileExists(atPath: url.path)
            throw CLIError(exists ? .io : .notFound, "cannot read the raw key file \(url.path)")
        }
        defer { try? handle.close() }
        let bytes = (try? handle.read(upToCount: DataKey.byteCount + 1)) ?? nil ?? Data()
        guard bytes.count == DataKey.byteCount else {
            throw CLIError(
                .keyProblem,
                "the raw key file \(url.path) must hold exactly \(DataKey.byteCount) bytes"
                    + (bytes.count > DataKey.byteCount ? " (it is longer)" : " (it holds \(bytes.count))"))
        }
        return bytes
    }

    /// Writes 32 new random bytes to a new file at `url` (mode 0600) and returns them.
    /// - Throws: ``CLIError`` `.alreadyExists` when `url` exists, `.io`.
    static func create(at url: URL) throws -> Data {
        let key = DataKey.random().withUnsafeBytes { Data($0) }
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            if code == EEXIST {
                throw CLIError(.alreadyExists, "\(url.path) already exists; refusing to replace a key")
            }
            throw CLIError(.io, "cannot create \(url.path): \(String(cString: strerror(code)))")
        }
        defer { close(descriptor) }
        guard StandardStreams.writeAll(key, to: descriptor), fsync(descriptor) == 0 else {
            unlink(url.path)
            throw CLIError(.io, "cannot write \(url.path)")
        }
        return key
    }
}
