public import Coffer
public import Foundation

/// A new database in its own temporary directory, for one test.
///
/// The directory (and the file) go away with this object; tests that close and reopen a file
/// manage their own ``TemporaryDirectory`` and use ``TestSupport/open(_:options:timeout:)``.
public final class TestDatabase {
    /// The open database.
    ///
    /// Declared first so it is released before the directory is removed.
    public let database: Database
    /// The options it was opened with, key included: reuse them to reopen the file.
    public let options: DatabaseOptions
    /// The database file.
    public let url: URL
    /// The directory holding the file.
    public let directory: TemporaryDirectory

    /// Creates a database keyed with a fresh key of `kind` (or unencrypted), letting `configure`
    /// adjust the options first.
    /// - Throws: any error from opening.
    public init(
        _ kind: TestKeyKind? = .raw, name: String = "db.sqlite", configure: (inout DatabaseOptions) -> Void = { _ in }
    ) throws {
        directory = TemporaryDirectory()
        url = directory.file(name)
        var options = kind?.makeOptions() ?? DatabaseOptions()
        configure(&options)
        self.options = options
        database = try Database(url: url, options: options)
    }

    /// Opens `other`'s file again with its options, sharing its directory; close `other`'s
    /// database first.
    /// - Throws: any error from opening.
    public init(reopening other: TestDatabase) throws {
        directory = other.directory
        url = other.url
        options = other.options
        database = try TestSupport.open(other.url, options: other.options)
    }

    /// A new connection to the database.
    /// - Throws: any error from opening a handle.
    public func connection(config: ConnectionConfig? = nil) throws -> Connection {
        try database.newConnection(config: config)
    }
}
