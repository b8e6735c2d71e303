import Coffer
import Foundation

/// The extension that captures local writes to the synced collections for upload.
///
/// In the committing transaction it marks each changed row pending (stamped by the clock) and
/// queues an upload operation in the sync queue (a CloudCore registration). A transaction
/// marked remote (a remote apply) is ignored, so nothing is echoed back.
struct SyncCapture: DatabaseExtension {
    let replica: SyncReplica

    var kind: String { "CofferSyncCapture" }
    var isPersistent: Bool { true }
    /// No tables of its own: the state lives in the reserved collections.
    func tableNames(registeredName: String) -> [String] { [] }
    var dependencies: Set<String> { [replica.queueName] }
    var derivedCollections: AllowList<String>? { .only(Set(replica.collections.keys)) }

    func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        let replica = replica
        return StatelessConnectionState { context in SyncCaptureTransaction(context: context, replica: replica) }
    }
}

/// One transaction's capture: the rows it changed, written out before the commit.
final class SyncCaptureTransaction: ExtensionTransaction {
    let context: ExtensionContext
    let replica: SyncReplica
    /// Set by a remote apply: its writes are not local edits.
    var isRemote = false
    private var changed: [CollectionKey] = []
    private var seen: Set<CollectionKey> = []
    /// The reserved collections as they were before a removal of every collection.
    private var preserved: SyncLocalStore.Snapshot?

    init(context: ExtensionContext, replica: SyncReplica) {
        self.context = context
        self.replica = replica
    }

    private func note(_ row: CollectionKey) {
        guard !isRemote, replica.collections[row.collection] != nil, seen.insert(row).inserted else { return }
        changed.append(row)
    }

    func populate() throws {
        let tx = try context.transaction()
        for name in replica.collections.keys.sorted() {
            for key in try tx.allKeys(inCollection: name) { note(CollectionKey(collection: name, key: key)) }
        }
        try flushPendingChanges()
    }

    func didInsert(_ row: ExtensionRow) throws { note(row.collectionKey) }
    func didUpdate(_ row: ExtensionRow) throws { note(row.collectionKey) }
    func didReplaceObject(_ row: ExtensionRow) throws { note(row.collectionKey) }
    func didReplaceMetadata(_ row: ExtensionRow) throws { note(row.collectionKey) }
    func didRemove(_ row: CollectionKey, rowid: Int64) throws { note(row) }
    func removesEachRow(ofCollection collection: String) -> Bool { replica.collections[collection] != nil }

    func willRemoveAllCollections() throws {
        let tx = try context.transaction()
        // The removal empties the reserved collections too: keep them to write back before the
        // commit, so the device keeps its credentials, cursor and tombstones.
        if preserved == nil { preserved = try SyncLocalStore.snapshot(tx) }
        for name in replica.collections.keys.sorted() {
            for key in try tx.allKeys(inCollection: name) { note(CollectionKey(collection: name, key: key)) }
        }
    }

    var hasPendingChanges: Bool { !changed.isEmpty || preserved != nil }

    func flushPendingChanges() throws {
        let tx = try context.writeTransaction()
        if let preserved {
            self.preserved = nil
            try SyncLocalStore.restore(preserved, tx)
        }
        guard !changed.isEmpty else { return }
        let rows = changed
        changed.removeAll()
        try replica.recordLocalWrites(rows, tx)
    }

    func didRollback() {
        changed.removeAll()
        seen.removeAll()
        preserved = nil
    }

    func didCommit() {
        seen.removeAll()
    }
}
