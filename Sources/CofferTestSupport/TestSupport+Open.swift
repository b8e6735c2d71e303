public import Coffer
public import Foundation

extension TestSupport {
    /// Opens the database at `url`, retrying for up to `timeout` while `.misuse` reports that a
    /// just-released ``Database`` of the same file has not finished going away.
    ///
    /// Releasing the last reference to a database does not always release its file on the spot:
    /// a notification being posted or an asynchronous transaction block that is finishing may
    /// hold the database for a moment longer, and it goes away on that thread. Tests that close
    /// and reopen a file use this instead of calling `Database(url:options:)` directly.
    /// - Throws: the open error, or `.misuse` when the file stays open past `timeout`.
    public static func open(_ url: URL, options: DatabaseOptions, timeout: Duration = .seconds(5)) throws -> Database {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                return try Database(url: url, options: options)
            } catch let error as DatabaseError where error.code == .misuse && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.002)
            }
        }
    }

    /// Waits until no ``Database`` of this process holds `url`, by opening and releasing it.
    ///
    /// An open that commits nothing leaves no background work behind, so the probe itself is
    /// released at once and the file is closed and stable when this returns.
    /// - Throws: the open error, or `.misuse` when the file stays open past `timeout`.
    public static func waitUntilClosed(_ url: URL, options: DatabaseOptions, timeout: Duration = .seconds(5)) throws {
        _ = try open(url, options: options, timeout: timeout)
    }
}

extension TestSupport {
    /// Waits until no `Database` in this process holds `url` (a released database can take a
    /// moment to let go while a queued notification finishes).
    /// - Throws: `.misuse` when the file stays open past `timeout`.
    public static func waitUntilClosed(_ url: URL, timeout: Duration = .seconds(5)) throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                var probe = DatabaseOptions()
                probe.createIfMissing = false
                _ = try Database(url: url, options: probe)
                return
            } catch let error as DatabaseError where error.code == .misuse {
                guard ContinuousClock.now < deadline else { throw error }
                Thread.sleep(forTimeInterval: 0.005)
            } catch {
                return
            }
        }
    }
}
