internal import CSQLCipher

/// One I/O failure for ``FaultInjectingVFS`` to inject (test-only).
///
/// It says which call fails, on which kind of file, and with which result code.
/// Calls are counted from the moment the fault is armed (``FaultController/arm(_:)``), and
/// only the calls that match both ``operation`` and ``file`` count.
package struct IOFault: Sendable, Hashable, CustomStringConvertible {
    /// The file method that fails.
    package enum Operation: String, Sendable, Hashable, CaseIterable {
        /// `xRead`: reading pages of the database, the WAL or a journal.
        case read
        /// `xWrite`: writing pages, WAL frames or journal records.
        case write
        /// `xSync`: `fsync` of the database, the WAL or a journal.
        case sync
        /// `xTruncate`: shrinking a file (WAL reset, journal truncation, vacuum).
        case truncate
    }

    /// Which kind of file a fault applies to, from the flags SQLite opens it with.
    package enum FileKind: String, Sendable, Hashable, CaseIterable {
        /// A main database file (also an attached one, such as an export target).
        case mainDatabase
        /// A write-ahead log (`-wal`).
        case wal
        /// A rollback journal (`-journal`).
        case journal
        /// Any other file SQLite opens (temporary databases, statement journals, super-journals).
        case other
        /// Every file.
        case any

        /// Whether a file of kind `self` (never `.any`) is selected by `filter`.
        func matches(_ filter: FileKind) -> Bool { filter == .any || filter == self }
    }

    /// The method that fails.
    package var operation: Operation
    /// The kind of file whose calls count and fail.
    package var file: FileKind
    /// Which matching call fails, counting from 1 at the moment the fault is armed.
    package var nth: Int
    /// Whether every matching call from the `nth` on fails ("the disk stays broken"), rather
    /// than the `nth` alone ("a transient error").
    package var persistent: Bool
    /// The SQLite result code the failing call returns (an extended `SQLITE_IOERR_*` code or `SQLITE_FULL`).
    package var resultCode: Int32

    /// Describes a fault; `resultCode` defaults to the `SQLITE_IOERR_*` code of `operation`.
    package init(
        _ operation: Operation, on file: FileKind = .any, nth: Int = 1, persistent: Bool = false,
        resultCode: Int32? = nil
    ) {
        self.operation = operation
        self.file = file
        self.nth = max(1, nth)
        self.persistent = persistent
        self.resultCode = resultCode ?? Self.defaultCode(for: operation)
    }

    /// A full disk: the `nth` matching write (and, when `persistent`, every later one) fails with `SQLITE_FULL`.
    package static func diskFull(on file: FileKind = .any, nth: Int = 1, persistent: Bool = true) -> IOFault {
        IOFault(.write, on: file, nth: nth, persistent: persistent, resultCode: SQLITE_FULL)
    }

    /// The extended I/O error code the unix VFS itself returns when `operation` fails.
    package static func defaultCode(for operation: Operation) -> Int32 {
        switch operation {
        case .read: SQLiteError.IOErrorCode.read
        case .write: SQLiteError.IOErrorCode.write
        case .sync: SQLiteError.IOErrorCode.fsync
        case .truncate: SQLiteError.IOErrorCode.truncate
        }
    }

    /// `write#3 on wal (once) → 778`, for test output.
    package var description: String {
        "\(operation)#\(nth) on \(file) (\(persistent ? "persistent" : "once")) → \(resultCode)"
    }
}
