/// What one committed read-write transaction changed, as seen by every other connection.
///
/// Delivered through ``Database/modifiedNotification`` (in `userInfo["changeset"]`), through
/// ``Database/changes``, and returned by long-lived read transactions. Keys only: values are
/// read through a transaction.
public struct Changeset: Sendable {
    /// The snapshot the commit produced.
    public let snapshot: UInt64
    /// The ``Connection/id`` of the connection that committed.
    public let connectionID: UInt64
    /// The committing connection's name, if it had one.
    public let connectionName: String?
    /// Rows whose object was set, replaced or touched.
    public let objectChanges: Set<CollectionKey>
    /// Rows whose metadata was set, replaced, cleared or touched.
    public let metadataChanges: Set<CollectionKey>
    /// Rows that did not exist before the transaction.
    public let insertedKeys: Set<CollectionKey>
    /// Rows removed one by one (rows of a cleared collection are not listed here).
    public let removedKeys: Set<CollectionKey>
    /// Collections emptied with `removeAllObjects(inCollection:)`.
    public let removedCollections: Set<String>
    /// Whether `removeAllObjectsInAllCollections()` ran.
    public let allKeysRemoved: Bool
    /// The transaction's ``ReadWriteTransaction/notificationCustomObject``.
    public let customObject: (any Sendable)?
    /// Per-extension changes, by registered extension name.
    public let extensionChanges: [String: any Sendable]

    /// How sibling connections update their caches, per row (internal: values never leave the process
    /// through the public API of a changeset).
    let objectUpdates: [CollectionKey: CacheUpdate]
    let metadataUpdates: [CollectionKey: CacheUpdate]

    init(
        snapshot: UInt64, connectionID: UInt64, connectionName: String?, changes: PendingChanges,
        customObject: (any Sendable)?, extensionChanges: [String: any Sendable]
    ) {
        self.snapshot = snapshot
        self.connectionID = connectionID
        self.connectionName = connectionName
        self.objectUpdates = changes.objectUpdates
        self.metadataUpdates = changes.metadataUpdates
        self.objectChanges = Set(changes.objectUpdates.keys)
        self.metadataChanges = Set(changes.metadataUpdates.keys)
        self.insertedKeys = changes.insertedKeys
        self.removedKeys = changes.removedKeys
        self.removedCollections = changes.removedCollections
        self.allKeysRemoved = changes.allKeysRemoved
        self.customObject = customObject
        self.extensionChanges = extensionChanges
    }

    /// Whether the commit changed nothing a reader could see.
    var isEmpty: Bool {
        objectUpdates.isEmpty && metadataUpdates.isEmpty && removedKeys.isEmpty && removedCollections.isEmpty
            && !allKeysRemoved && customObject == nil && extensionChanges.isEmpty
    }
}

/// What a sibling connection does with a cached value after a commit.
enum CacheUpdate: @unchecked Sendable {
    // Safety: values stored here are `any Sendable` or nil; the enum only adds the case tag.
    /// Drop the cached value (containment policy): it is read again on demand.
    case evict
    /// The row was touched: the cached value stays valid.
    case touch
    /// Cache this very value (share policy); `nil` means "no metadata".
    case set((any Sendable)?)
    /// Cache a copy of this value of one's own (copy policy).
    case copy(any CopyableObject)

    /// The update a write under `policy` publishes for `value`.
    static func forWrite(_ value: (any Sendable)?, policy: ObjectPolicy) -> CacheUpdate {
        switch policy {
        case .containment:
            return .evict
        case .share:
            return .set(value)
        case .copy:
            guard let value else { return .set(nil) }
            if let copyable = value as? any CopyableObject { return .copy(copyable.copy()) }
            // Value types are copies already; other classes cannot be copied safely.
            return type(of: value) is AnyClass ? .evict : .set(value)
        }
    }
}

/// The changes a read-write transaction has made so far.
struct PendingChanges {
    var objectUpdates: [CollectionKey: CacheUpdate] = [:]
    var metadataUpdates: [CollectionKey: CacheUpdate] = [:]
    var insertedKeys: Set<CollectionKey> = []
    var removedKeys: Set<CollectionKey> = []
    var removedCollections: Set<String> = []
    var allKeysRemoved = false
    /// Whether anything was written to the file (touches are not).
    var hasDiskChanges = false

    var isEmpty: Bool {
        objectUpdates.isEmpty && metadataUpdates.isEmpty && removedKeys.isEmpty && removedCollections.isEmpty
            && !allKeysRemoved
    }

    mutating func noteRemoved(_ ck: CollectionKey) {
        objectUpdates[ck] = nil
        metadataUpdates[ck] = nil
        insertedKeys.remove(ck)
        removedKeys.insert(ck)
        hasDiskChanges = true
    }

    mutating func noteRemovedCollection(_ collection: String) {
        objectUpdates = objectUpdates.filter { $0.key.collection != collection }
        metadataUpdates = metadataUpdates.filter { $0.key.collection != collection }
        insertedKeys = insertedKeys.filter { $0.collection != collection }
        removedKeys = removedKeys.filter { $0.collection != collection }
        removedCollections.insert(collection)
        hasDiskChanges = true
    }

    mutating func noteRemovedAll() {
        self = PendingChanges()
        allKeysRemoved = true
        hasDiskChanges = true
    }
}
