internal import CSQLCipher

extension SQLiteError {
    /// Extended `SQLITE_IOERR_*` result codes (sqlite3.h defines them as expressions Swift
    /// cannot import): which I/O call failed.
    package enum IOErrorCode {
        private static func code(_ detail: Int32) -> Int32 { SQLITE_IOERR | (detail << 8) }

        /// A read failed.
        package static let read = code(1)
        /// A write failed.
        package static let write = code(3)
        /// An `fsync` failed.
        package static let fsync = code(4)
        /// A truncation failed.
        package static let truncate = code(6)
        /// Reading a file's size failed.
        package static let fstat = code(7)
        /// Releasing a lock failed.
        package static let unlock = code(8)
        /// Deleting a file failed.
        package static let delete = code(10)
        /// Checking whether a file exists failed.
        package static let access = code(13)
        /// Checking for a reserved lock failed.
        package static let checkReservedLock = code(14)
        /// Taking a lock failed.
        package static let lock = code(15)
        /// Locking the WAL index failed.
        package static let shmLock = code(20)
        /// Mapping the WAL index failed.
        package static let shmMap = code(21)
    }
}
