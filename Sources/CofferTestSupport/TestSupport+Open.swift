public import Coffer
public import Foundation

extension TestSupport {
    /// Opens the database at `url` once a just-released ``Database`` of the same file has finished
    /// closing.
    ///
    /// Releasing the last reference to a database does not always close it on the spot: a
    /// notification being posted or an asynchronous transaction block that is finishing may
    /// hold the database for a moment longer, and it closes on that thread. Tests that close
    /// and reopen a file use this instead of calling `Database(url:options:)` directly.
    /// - Throws: the open error (`.misuse` when the file stays open past `timeout`).
    public static func open(_ url: URL, options: DatabaseOptions, timeout: Duration = .seconds(5)) throws -> Database {
        _ = Database.waitUntilClosed(url, timeout: timeout)
        return try Database(url: url, options: options)
    }

    /// Waits until no ``Database`` of this process holds `url`.
    /// - Throws: `.misuse` when the file stays open past `timeout`.
    public static func waitUntilClosed(_ url: URL, timeout: Duration = .seconds(5)) throws {
        guard Database.waitUntilClosed(url, timeout: timeout) else {
            throw DatabaseError(.misuse, "\(url.lastPathComponent) is still open after \(timeout)")
        }
    }
}
