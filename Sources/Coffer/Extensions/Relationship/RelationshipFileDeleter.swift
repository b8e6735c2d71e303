import Dispatch
import Foundation
import Synchronization

/// Deletes the files whose edges' rules fired, after the commit, on a serial background queue.
///
/// A commit hands over the files with the ids of the records it wrote for them; once a file is
/// gone its record id is reported to the registration's ``RelationshipFileLedger``, and the next
/// write transaction removes the record.
final class RelationshipFileDeleter: Sendable {
    /// Where deletions run: never the writer's thread, so a commit does not wait for the file system.
    let queue = DispatchQueue(label: "coffer.relationship.files")
    /// Tests set it to leave the files and their records as a crash after the commit would.
    let skipsDeletion = Atomic<Bool>(false)

    /// Deletes `files` later, then reports `records` done to `ledger`.
    func delete(_ files: [URL], records: [Int64], ledger: RelationshipFileLedger) {
        queue.async { [self] in
            guard !skipsDeletion.load(ordering: .relaxed) else { return }
            for file in files { Self.remove(file) }
            ledger.markDone(records)
        }
    }

    /// Waits until the deletions handed over so far ran.
    func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }

    /// Waits, blocking, until the deletions handed over so far ran (for tests).
    func drainNow() {
        queue.sync {}
    }

    /// Removes `file`; one already gone is fine (a second deletion after a crash), and a failure
    /// leaves nothing to retry with, so it is ignored.
    static func remove(_ file: URL) {
        try? FileManager.default.removeItem(at: file)
    }
}

/// The ids of file-deletion records whose files are gone, shared by a registration's connections:
/// the next write transaction removes those records.
final class RelationshipFileLedger: Sendable {
    private let done = Locked<Set<Int64>>([])

    func markDone(_ records: [Int64]) {
        done.withLock { $0.formUnion(records) }
    }

    /// The ids done so far.
    var doneRecords: Set<Int64> { done.withLock { $0 } }

    /// Forgets `records` once a commit removed them.
    func forget(_ records: Set<Int64>) {
        done.withLock { $0.subtract(records) }
    }
}
