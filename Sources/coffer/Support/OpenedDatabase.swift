import Coffer
import Foundation

/// An existing database opened for a command, with one connection.
struct OpenedDatabase {
    /// The database.
    let database: Database
    /// The command's connection.
    let connection: Connection

    /// Opens the existing database at `location` with the key `keys` describe.
    ///
    /// Never creates a file: a missing path is an error that points to `coffer create`.
    /// The connection's caches are off: a command reads each row once, and caching would only
    /// grow memory during a full scan.
    /// - Parameter configure: Adjusts the options (for example key-rotation hooks).
    /// - Throws: ``CLIError`` `.io` (no such file) or from reading the key; ``DatabaseError``.
    static func open(
        _ location: DatabaseLocation, keys: KeyOptions, input: LineReader,
        configure: (inout DatabaseOptions) -> Void = { _ in }
    ) throws -> OpenedDatabase {
        let url = location.url
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CLIError(.io, "no database at \(url.path) (make one with 'coffer create')")
        }
        var options = DatabaseOptions()
        options.createIfMissing = false
        configure(&options)
        options.key = try keys.databaseKey(input: input)
        let database = try Database(url: url, options: options)
        options.key = nil  // drop this copy of the key material as soon as the database holds it
        var config = ConnectionConfig()
        config.objectCacheEnabled = false
        config.metadataCacheEnabled = false
        return OpenedDatabase(database: database, connection: try database.newConnection(config: config))
    }

    /// Closes the database once the command's writing is done: its rows are committed, the
    /// write-ahead log merged into the file and the file released, so the file alone holds every
    /// row the command wrote before the command prints its result.
    /// - Throws: ``DatabaseError`` when the close fails (`.busy`, a write that could not commit);
    ///   the rows committed so far stay safe in the log.
    func finishWriting() throws {
        try database.close()
    }
}
