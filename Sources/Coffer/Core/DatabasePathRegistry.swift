import Foundation

/// The database files open in this process: one ``Database`` per file, as in YapDatabase.
///
/// Each claimed path remembers its `Database` weakly. A weak reference turns nil the moment the
/// database starts deinitializing, while its handles are still closing; a new open of the same file
/// in that window waits (bounded) for the release instead of failing as if the file were in use.
enum DatabasePathRegistry {
    private struct Claim {
        /// Set once the opening `Database` is fully initialized.
        weak var database: Database?
        var attached = false

        /// Whether the claim belongs to a database that is already going away.
        var isReleasing: Bool { attached && database == nil }
    }

    private static let claims = Locked<[String: Claim]>([:])
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
        let clock = ContinuousClock()
        let deadline = clock.now + releaseWait
        while true {
            let outcome = claims.withLock { claims -> Bool? in
                guard let existing = claims[path] else {
                    claims[path] = Claim()
                    return true
                }
                return existing.isReleasing ? nil : false
            }
            if let outcome { return outcome }
            guard clock.now < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.000_5)
        }
    }

    /// Records the database that now holds `path` (called once it is fully initialized).
    static func attach(_ path: String, _ database: Database) {
        claims.withLock { claims in
            claims[path]?.database = database
            claims[path]?.attached = true
        }
    }

    /// Releases `path` when its `Database` goes away (or fails to open).
    static func release(_ path: String) {
        _ = claims.withLock { $0.removeValue(forKey: path) }
    }
}
