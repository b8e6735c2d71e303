import Foundation

@testable import CofferSync

/// A server in memory with the rules of the PostgreSQL one (optimistic concurrency, sequence
/// numbers in commit order, pulls after a cursor), for tests of the local side without a server.
final class MemoryServer: @unchecked Sendable {
    // Safety: every access goes through `lock`.
    private let lock = NSLock()
    private var rows: [RowID: PulledRow] = [:]
    private var lastSequence: Int64 = 0

    /// Pushes rows; each is stored only when the held version equals its base.
    func push(_ batch: UploadBatch) -> [UploadOutcome] {
        lock.withLock {
            batch.uploads.map { upload in
                if let held = rows[upload.row.rowID], held.row.version != upload.baseVersion {
                    return .conflict(current: held)
                }
                precondition(upload.row.version == upload.baseVersion + 1, "a push is its base version plus one")
                lastSequence += 1
                rows[upload.row.rowID] = PulledRow(row: upload.row, sequence: lastSequence)
                return .accepted
            }
        }
    }

    /// Rows stored after `cursor`, in sequence order.
    func pull(after cursor: Int64, limit: Int = 1_000) -> [PulledRow] {
        lock.withLock {
            Array(rows.values.filter { $0.sequence > cursor }.sorted { $0.sequence < $1.sequence }.prefix(limit))
        }
    }

    /// Changes a stored row in place, as a hostile server would.
    func tamper(_ rowID: RowID, _ change: (inout PulledRow) -> Void) {
        lock.withLock {
            guard var row = rows[rowID] else { return }
            change(&row)
            lastSequence += 1
            row.sequence = lastSequence
            rows[rowID] = row
        }
    }

    /// Replaces every row (a key rotation), numbering them anew.
    func replaceAll(_ sealed: [SealedRow]) {
        lock.withLock {
            rows = [:]
            for row in sealed {
                lastSequence += 1
                rows[row.rowID] = PulledRow(row: row, sequence: lastSequence)
            }
        }
    }

    var lastSequenceNumber: Int64 { lock.withLock { lastSequence } }

    var allRows: [PulledRow] { lock.withLock { Array(rows.values) } }
}
