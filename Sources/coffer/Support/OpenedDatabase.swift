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

    /// Merges the write-ahead log into the database file, so that the file alone holds every
    /// row the command committed.
    ///
    /// Closing the database does this too, but the close can finish on one of Coffer's queues
    /// after the command returns (`CofferCommand.waitForDatabasesToClose()` waits for it); this
    /// makes the file complete as soon as the command's writing is done.
    /// - Throws: ``DatabaseError`` when the checkpoint fails (the rows stay safe in the log).
    func finishWriting() throws {
        try database.checkpoint(truncate: true)
    }
}
