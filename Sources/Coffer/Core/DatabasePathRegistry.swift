import Foundation

/// The database files open in this process: one ``Database`` per file, as in YapDatabase.
///
/// A `Database` marks its path as releasing the moment its deinitializer starts, while its
/// handles are still closing; a new open of the same file in that window waits (bounded) for the
/// release instead of failing as if the file were in use. The registry never holds a reference
/// to a database: a reference dropped under its lock could run that database's deinitializer,
/// which takes the same lock.
enum DatabasePathRegistry {
    /// For each claimed path, whether its database is already going away.
    private static let claims = Locked<[String: Bool]>([:])
    /// How long an open waits for a released database of the same file to finish closing.
    static let releaseWait: Duration = .seconds(10)

    /// The canonical path used to detect a second open of the same file.
    static func canonicalPath(_ url: URL) -> String {
        url.standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Claims `path`; false when another `Database` has it open (or is still opening it).
    ///
    /// - Complexity: O(1), or up to ``releaseWait`` while a released database of `path` closes.
    static func claim(_ path: String) -> Bool {
        let outcome = poll(for: releaseWait) {
            claims.withLock { claims -> Bool? in
                guard let releasing = claims[path] else {
                    claims[path] = false
                    return true
                }
                return releasing ? nil : false
            }
        }
        return outcome ?? false
    }

    /// Waits until `path` is no longer claimed (nil: until no path is); false when still claimed
    /// after `timeout`.
    static func waitUntilReleased(_ path: String?, timeout: Duration) -> Bool {
        let released = poll(for: timeout) {
            claims.withLock { claims in path.map { claims[$0] == nil } ?? claims.isEmpty } ? true : nil
        }
        return released ?? false
    }

    /// Calls `attempt` every half millisecond until it gives an answer or `timeout` has passed.
    private static func poll<T>(for timeout: Duration, _ attempt: () -> T?) -> T? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            if let answer = attempt() { return answer }
            guard clock.now < deadline else { return nil }
            Thread.sleep(forTimeInterval: 0.000_5)
        }
    }

    /// Marks `path` as going away: its `Database` is deinitializing and will ``release(_:)`` it.
    static func beginRelease(_ path: String) {
        claims.withLock { claims in
            if claims[path] != nil { claims[path] = true }
        }
    }

    /// Releases `path` when its `Database` goes away (or fails to open).
    static func release(_ path: String) {
        _ = claims.withLock { $0.removeValue(forKey: path) }
    }
}
