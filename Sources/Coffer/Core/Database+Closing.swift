public import Foundation

extension Database {
    /// Waits until the database at `url` has finished closing in this process, so that the file
    /// can be copied, deleted or opened with other options, or the program can exit.
    ///
    /// A database closes when its last reference goes away, on whichever thread drops it. That is
    /// usually yours, but one of Coffer's own queues can hold the database for a moment after you
    /// release it (while it posts ``modifiedNotification`` for your last commit, for example), and
    /// then the close — the final checkpoint, the saved snapshot number, closing every SQLite
    /// handle — runs on that queue. Exiting the process in the middle of it loses the checkpoint
    /// and can crash the exit itself, as SQLCipher's cryptography library is torn down under the
    /// closing handles.
    ///
    /// - Parameters:
    ///   - url: The database file, spelled any way that resolves to it.
    ///   - timeout: How long to wait for a database that is still referenced.
    /// - Returns: True when the file is not open in this process; false when it still was after
    ///   `timeout` (something still holds a reference to its database).
    /// - Complexity: Polls every half millisecond until the close finishes.
    public static func waitUntilClosed(_ url: URL, timeout: Duration = .seconds(10)) -> Bool {
        DatabasePathRegistry.waitUntilReleased(DatabasePathRegistry.canonicalPath(url), timeout: timeout)
    }

    /// Waits until every database this process opened has finished closing: what a program calls
    /// after releasing its databases and before it exits (``waitUntilClosed(_:timeout:)`` says why).
    ///
    /// Only released databases close. A database held by a top-level variable of `main.swift` is
    /// a global that lives until the process ends, so the wait would always use its whole timeout
    /// and return false: open it inside a function or a `do { }` block that ends before the wait,
    /// and do not let a long-running `Task` capture it.
    ///
    /// - Parameter timeout: How long to wait for a database that is still referenced.
    /// - Returns: True when no database is open; false when one still was after `timeout`.
    public static func waitUntilAllClosed(timeout: Duration = .seconds(10)) -> Bool {
        DatabasePathRegistry.waitUntilReleased(nil, timeout: timeout)
    }
}
