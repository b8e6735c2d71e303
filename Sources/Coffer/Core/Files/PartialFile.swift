import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A copy being written beside its destination, locked so that nobody mistakes it for one a
/// crashed process left behind.
///
/// Backups, key rotation, import and export write `.<name>.coffer-partial-<UUID>` beside the
/// destination and rename it into place when complete. A process killed before the rename
/// leaves that file and its `-journal`/`-wal`/`-shm` behind, as large as the database (and for
/// `exportUnencryptedCopy`, in plaintext). Before writing a new copy (and when a database
/// opens), the stale copies of that destination are deleted.
///
/// A copy is stale when no one holds the `flock` on its lock file, `<copy>.lock`. The writer
/// creates and locks that file before the copy exists, and deletes it only after the copy and
/// its sidecars are gone. The kernel drops an `flock` when its process dies, however it dies,
/// so a killed writer's copy is stale at once, with no PID to reuse and no clock to trust. An
/// `flock` belongs to an open file description, so a second writer in the same process is
/// seen too. The lock sits on a separate file so that it never meets the `fcntl` locks SQLite
/// takes on the copy: whether the two kinds interact on one file differs between systems and
/// file systems (NFS emulates `flock` with `fcntl` locks).
final class PartialFile {
    /// Where the copy is written, in the destination's directory (so the final rename is atomic).
    let url: URL
    private let lockPath: String
    private var lockDescriptor: Int32

    /// Removes the stale copies of `destination`, then creates a new, empty copy (mode 0600) and
    /// locks it.
    /// - Complexity: lists the destination's directory once.
    /// - Throws: ``DatabaseError`` `.io` when the copy or its lock file cannot be created.
    static func create(besides destination: URL) throws -> PartialFile {
        removeStale(besides: destination)
        let base = destination.deletingLastPathComponent().appendingPathComponent(namePrefix(of: destination))
        // A cleaner can lock and delete a new lock file in the instant before its writer locks it;
        // the writer sees its file unlinked and starts again under another name.
        for _ in 0..<3 {
            let copy = URL(fileURLWithPath: base.path + UUID().uuidString)
            let lockPath = copy.path + lockSuffix
            let descriptor = open(lockPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw DatabaseError(.io, "cannot create a file beside the destination", path: destination.path)
            }
            let locked = flock(descriptor, LOCK_EX | LOCK_NB) == 0
            // EWOULDBLOCK: a cleaner holds it and is deleting it. Any other failure means the file
            // system has no `flock`: cleaners cannot lock the file either, so they leave the copy alone.
            if (!locked && errno == EWOULDBLOCK) || !isLinked(descriptor) {
                close(descriptor)
                continue
            }
            let partial = PartialFile(url: copy, lockPath: lockPath, lockDescriptor: descriptor)
            try FileSafety.createPrivateFile(copy)
            return partial
        }
        throw DatabaseError(.io, "cannot lock a file beside the destination", path: destination.path)
    }

    private init(url: URL, lockPath: String, lockDescriptor: Int32) {
        self.url = url
        self.lockPath = lockPath
        self.lockDescriptor = lockDescriptor
    }

    deinit { remove() }

    /// Deletes the copy (if it was not renamed into place) and its sidecars, then its lock file,
    /// and releases the lock; later calls do nothing.
    func remove() {
        guard lockDescriptor >= 0 else { return }
        FileSafety.removeWithSidecars(url)
        unlink(lockPath)
        close(lockDescriptor)
        lockDescriptor = -1
    }

    /// Deletes every copy of `destination` (with its sidecars and lock file) whose writer is gone.
    ///
    /// Only names of the exact form `.<name>.coffer-partial-<UUID>` plus one of `-journal`,
    /// `-wal`, `-shm`, `.lock` are touched. A copy without a lock file was left by a version of
    /// Coffer that did not lock its copies, or was finished since the listing; both are removed.
    /// - Complexity: lists the destination's directory once; one `open` per copy found.
    static func removeStale(besides destination: URL) {
        let directory = destination.deletingLastPathComponent()
        let prefix = namePrefix(of: destination)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for identifier in Set(names.compactMap { copyIdentifier(in: $0, prefix: prefix) }) {
            let copy = directory.appendingPathComponent(prefix + identifier)
            let lockPath = copy.path + lockSuffix
            let descriptor = open(lockPath, O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 else {
                // The writer creates its lock file first and deletes it last: no lock file, no writer.
                if errno == ENOENT { FileSafety.removeWithSidecars(copy) }
                continue
            }
            defer { close(descriptor) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { continue }
            FileSafety.removeWithSidecars(copy)
            unlink(lockPath)
        }
    }

    private static let lockSuffix = ".lock"
    private static let fileSuffixes: Set<Substring> = ["", "-journal", "-wal", "-shm", ".lock"]

    private static func namePrefix(of destination: URL) -> String {
        ".\(destination.lastPathComponent).coffer-partial-"
    }

    /// The UUID in `name` when `name` is one of the files of a copy with `prefix`.
    static func copyIdentifier(in name: String, prefix: String) -> String? {
        guard name.hasPrefix(prefix) else { return nil }
        let rest = name.dropFirst(prefix.count)
        let identifier = String(rest.prefix(36))
        guard let uuid = UUID(uuidString: identifier), uuid.uuidString == identifier,
            fileSuffixes.contains(rest.dropFirst(36))
        else { return nil }
        return identifier
    }

    /// Whether the file open at `descriptor` still has a name (a cleaner may have deleted it).
    private static func isLinked(_ descriptor: Int32) -> Bool {
        var status = stat()
        return fstat(descriptor, &status) == 0 && status.st_nlink > 0
    }
}
