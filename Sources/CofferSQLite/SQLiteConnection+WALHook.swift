internal import CSQLCipher

/// Learning how large the WAL is after each commit (`sqlite3_wal_hook`), so checkpoints run
/// when the log has grown rather than after every commit.
extension SQLiteConnection {
    /// Holds the callback for the C hook; retained by the connection.
    final class WALHookBox {
        let callback: (Int) -> Void
        init(_ callback: @escaping (Int) -> Void) { self.callback = callback }
    }

    /// Calls `callback` with the number of frames in the WAL after every commit on this handle.
    package func onWALCommit(_ callback: @escaping (_ frames: Int) -> Void) {
        let box = WALHookBox(callback)
        walHookBox = box
        sqlite3_wal_hook(
            handle,
            { context, _, _, frames in
                guard let context else { return SQLITE_OK }
                Unmanaged<WALHookBox>.fromOpaque(context).takeUnretainedValue().callback(Int(frames))
                return SQLITE_OK
            }, Unmanaged.passUnretained(box).toOpaque())
    }
}
