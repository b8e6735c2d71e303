import Foundation

@testable import CofferSync

/// Hands sealed rows from one replica to another, for the replica tests without the engine.
///
/// It keeps the last accepted version of each row, refuses a push whose base is not the held
/// version, and numbers accepted rows in order so that a replica pulls after its cursor. Not a
/// server and no stand-in for one: the engine's tests run against PostgreSQL.
final class RowRelay: @unchecked Sendable {
    // Safety: every access goes through `lock`.
    private let lock = NSLock()
    private var rows: [RowID: PulledRow] = [:]
    private var lastSequence: Int64 = 0

    /// Takes rows; each is kept only when the held version equals its base.
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

    /// Rows taken after `cursor`, in sequence order.
    func pull(after cursor: Int64, limit: Int = 1_000) -> [PulledRow] {
        lock.withLock {
            Array(rows.values.filter { $0.sequence > cursor }.sorted { $0.sequence < $1.sequence }.prefix(limit))
        }
    }

    /// Changes a held row in place and numbers it anew, for the tamper tests of the replica.
    func tamper(_ rowID: RowID, _ change: (inout PulledRow) -> Void) {
        lock.withLock {
            guard var row = rows[rowID] else { return }
            change(&row)
            lastSequence += 1
            row.sequence = lastSequence
            rows[rowID] = row
        }
    }

    /// Every row held, in no particular order.
    var allRows: [PulledRow] { lock.withLock { Array(rows.values) } }
}
