public import Coffer
import Foundation

/// The local half of sync for one database; it talks to no server (``SyncEngine`` moves its rows).
///
/// It holds the synced collections, the clock, the merge rule, the upload queue and the capture
/// extension, and runs the transactions that record local writes, apply remote rows and settle
/// uploads.
public final class SyncReplica: Sendable {
    /// The registration name of the upload queue (a CloudCore extension).
    public static let queueName = "coffer_sync_queue"
    /// The registration name of the capture extension.
    public static let captureName = "coffer_sync_capture"

    /// The database this replica syncs.
    public let database: Database
    /// The synced collections, by name.
    public let collections: [String: SyncedCollection]
    /// The clock that stamps this database's writes.
    public let clock: HybridLogicalClock
    /// The user's merge handler; nil for last writer wins (decided without decoding values).
    let merge: SyncMergeHandler?
    let queue: CloudCore
    let connection: Connection
    var queueName: String { Self.queueName }

    /// Prepares `database` for syncing `collections`.
    ///
    /// Registers the reserved collections' serializers, the upload queue and the capture
    /// extension. Rows already in the collections when the capture is first registered are
    /// queued for upload.
    ///
    /// - Parameters:
    ///   - database: The database whose collections to sync; its serializers for them are
    ///     registered as usual.
    ///   - collections: The collections to sync, each with its value types.
    ///   - merge: Decides conflicts between an unsent local write and a server write; nil for
    ///     ``SyncMerge/lastWriterWins``.
    /// - Throws: `SyncError.misuse` for a reserved or repeated collection name; Coffer's
    ///   `DatabaseError` from registering.
    public init(
        database: Database, collections: [SyncedCollection], merge: SyncMergeHandler? = nil
    ) throws {
        var byName: [String: SyncedCollection] = [:]
        for collection in collections {
            guard !collection.name.hasPrefix("coffer-sync."), byName[collection.name] == nil else {
                throw SyncError.misuse("synced collection names must be unique and not start with \"coffer-sync.\"")
            }
            byName[collection.name] = collection
        }
        self.database = database
        self.collections = byName
        self.merge = merge
        SyncLocalStore.registerSerializers(on: database)
        connection = try database.newConnection()
        let (clockID, last) = try connection.readWrite { tx in
            (try SyncLocalStore.clockID(tx), try SyncLocalStore.integer(tx, "clock"))
        }
        clock = HybridLogicalClock(device: clockID, start: last)
        if let existing = database.registeredExtension(Self.queueName) as? CloudCore {
            queue = existing
        } else {
            queue = try CloudCore(
                pipelines: [CloudCorePipeline(name: CloudCore.defaultPipelineName)],
                options: CloudCoreOptions(
                    operationTypes: [SyncUploadRequest.self], enablesTags: false, enablesAttachments: false))
            try database.register(queue, withName: Self.queueName)
        }
        // Registering the capture again would rebuild it and queue every row once more.
        guard database.registeredExtension(Self.captureName) == nil else {
            throw SyncError.misuse("the database already has a sync replica")
        }
        try database.register(SyncCapture(replica: self), withName: Self.captureName)
    }

    /// Marks `tx` as a remote apply: its writes are not captured for upload.
    func markRemote(_ tx: ReadWriteTransaction) throws {
        try tx.extension(Self.captureName, as: SyncCaptureTransaction.self).isRemote = true
    }

    /// Records local writes of `rows` (inside their transaction): pending, stamped now, queued.
    func recordLocalWrites(_ rows: [CollectionKey], _ tx: ReadWriteTransaction) throws {
        let queue = try tx.cloudCore(Self.queueName)
        for row in rows {
            let previous = try SyncLocalStore.rowState(tx, collection: row.collection, key: row.key)
            let deleted = try !tx.hasObject(forKey: row.key, inCollection: row.collection)
            // Removing a row that was never synced nor stored needs no tombstone.
            if deleted && previous == nil { continue }
            let state = SyncRowState(
                rowID: previous?.rowID, version: previous?.version ?? 0, timestamp: clock.now(), pending: true,
                deleted: deleted)
            try SyncLocalStore.setRowState(state, tx, collection: row.collection, key: row.key)
            try queue.add(CloudOperation(SyncUploadRequest(collection: row.collection, key: row.key)))
        }
        try SyncLocalStore.setInteger(clock.latest, tx, "clock")
    }

    /// The number of upload operations queued.
    public func queuedCount() throws -> Int {
        try connection.read { tx in try tx.cloudCore(Self.queueName).operations().count }
    }

    /// The highest server sequence this database has applied.
    public func cursor() throws -> Int64 {
        try connection.read { tx in try SyncLocalStore.cursor(tx) }
    }

    /// The sync state of one row, if it was ever written or pulled.
    public func rowState(collection: String, key: String) throws -> SyncRowState? {
        try connection.read { tx in try SyncLocalStore.rowState(tx, collection: collection, key: key) }
    }

    /// The device's stored credentials, if it created or joined a space.
    public func credentials() throws -> SyncDeviceCredentials? {
        try connection.read { tx in try SyncLocalStore.credentials(tx) }
    }

    /// Stores the device's credentials (a new space, a join, a new epoch's key).
    public func storeCredentials(_ credentials: SyncDeviceCredentials) throws {
        try connection.readWrite { tx in try SyncLocalStore.setCredentials(credentials, tx) }
    }
}
