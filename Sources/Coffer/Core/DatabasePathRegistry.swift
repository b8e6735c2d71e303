import Foundation

/// The database files open in this process: one ``Database`` per file, as in YapDatabase.
enum DatabasePathRegistry {
    private static let paths = Locked<Set<String>>([])

    /// The canonical path used to detect a second open of the same file.
    static func canonicalPath(_ url: URL) -> String {
        url.standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Claims `path`; false when another `Database` has it open.
    static func claim(_ path: String) -> Bool {
        paths.withLock { $0.insert(path).inserted }
    }

    /// Releases `path` when its `Database` goes away.
    static func release(_ path: String) {
        _ = paths.withLock { $0.remove(path) }
    }
}
