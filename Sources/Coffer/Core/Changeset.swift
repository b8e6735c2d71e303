/// What one committed read-write transaction changed, as seen by every other connection.
///
/// Delivered through ``Database/modifiedNotification`` (in `userInfo["changeset"]`), through
/// ``Database/changes``, and returned by long-lived read transactions. Keys only: values are
/// read through a transaction.
public struct Changeset: Sendable {
    /// The fields, behind one reference: a changeset is copied into the database's list, the
    /// notification queue, every change stream and every catching-up sibling, and a copy of one
    /// reference is one retain where copying the fields retained each set and dictionary.
    private let storage: Storage

    /// The snapshot the commit produced.
    public var snapshot: UInt64 { storage.snapshot }
    /// The ``Connection/id`` of the connection that committed.
    public var connectionID: UInt64 { storage.connectionID }
    /// The committing connection's name, if it had one.
    public var connectionName: String? { storage.connectionName }
    /// Rows removed one by one (rows of a cleared collection are not listed here).
    public var removedKeys: Set<CollectionKey> { storage.removedKeys }
    /// Collections emptied with `removeAllObjects(inCollection:)`.
    public var removedCollections: Set<String> { storage.removedCollections }
    /// Whether `removeAllObjectsInAllCollections()` ran.
    public var allKeysRemoved: Bool { storage.allKeysRemoved }
    /// The transaction's ``ReadWriteTransaction/notificationCustomObject``.
    public var customObject: (any Sendable)? { storage.customObject }
    /// Per-extension changes, by registered extension name (``changes(for:as:)`` reads one typed).
    public var extensionChanges: [String: any Sendable] { storage.extensionChanges }
    /// Extensions the commit registered (readers from this snapshot on can use them).
    public var registeredExtensions: Set<String> { storage.registeredExtensions }
    /// Extensions the commit unregistered: those asked for, and every extension depending on them.
    public var unregisteredExtensions: Set<String> { storage.unregisteredExtensions }
    /// Whether this changeset stands for commits the connection lost track of, so that every row
    /// and every extension must be taken as changed.
    ///
    /// A connection that falls further behind than the database keeps changesets (the last
    /// 10,000 commits) gets one such changeset in place of the ones it missed: a long-lived read
    /// transaction returns it when it advances, every change question answers yes for it, and
    /// every extension state is told (``ExtensionConnectionState/reset()``). Reload what you show.
    public var isReset: Bool { storage.isReset }
    /// Whether this changeset stands for commits made by another process
    /// (``DatabaseOptions/multiProcessSupport``); its ``connectionID`` is 0.
    ///
    /// With ``isReset`` they changed rows this process cannot know. Without it they changed no
    /// row (the other process opened the file or rebuilt what it keeps in memory), and the
    /// changeset carries no change; such changesets are not announced to observers.
    public var isExternal: Bool { storage.isExternal }

    /// What happened to each set, replaced or touched row, with how sibling connections update their
    /// caches (internal: values never leave the process through the public API of a changeset).
    var rows: ChangedRows { storage.rows }

    /// Rows whose object was set, replaced or touched.
    /// - Complexity: O(n) in the rows the transaction changed on the first access; the set is kept.
    public var objectChanges: Set<CollectionKey> { rows.objectKeys }
    /// Rows whose metadata was set, replaced, cleared or touched.
    /// - Complexity: O(n) in the rows the transaction changed on the first access; the set is kept.
    public var metadataChanges: Set<CollectionKey> { rows.metadataKeys }
    /// Rows that did not exist before the transaction.
    /// - Complexity: O(n) in the rows the transaction changed on the first access; the set is kept.
    public var insertedKeys: Set<CollectionKey> { rows.insertedKeys }

    /// Creates a changeset by hand, so a notification handler can be tested without a commit.
    ///
    /// ```swift
    /// let changeset = Changeset(objectChanges: [CollectionKey(collection: "notes", key: "n1")])
    /// let note = Notification(
    ///     name: Database.modifiedNotification, object: nil, userInfo: [Database.changesetKey: changeset])
    /// handler(note)
    /// ```
    ///
    /// A changeset made here behaves as a committed one under every query
    /// (``Connection/hasChange(forKey:inCollection:in:)`` and the others). An inserted row
    /// counts as a change of its object and its metadata, as it does in a commit, so the keys of
    /// `insertedKeys` are added to `objectChanges` and `metadataChanges`.
    ///
    /// - Parameters:
    ///   - snapshot: The snapshot the commit would have produced.
    ///   - connectionID: The ``Connection/id`` of the committing connection.
    ///   - connectionName: The committing connection's name.
    ///   - objectChanges: Rows whose object was set, replaced or touched.
    ///   - metadataChanges: Rows whose metadata was set, replaced, cleared or touched.
    ///   - insertedKeys: Rows that did not exist before the transaction.
    ///   - removedKeys: Rows removed one by one.
    ///   - removedCollections: Collections emptied with `removeAllObjects(inCollection:)`.
    ///   - allKeysRemoved: Whether `removeAllObjectsInAllCollections()` ran.
    ///   - customObject: The transaction's ``ReadWriteTransaction/notificationCustomObject``.
    ///   - extensionChanges: Per-extension changes, by registered extension name.
    ///   - registeredExtensions: Extensions the commit registered.
    ///   - unregisteredExtensions: Extensions the commit unregistered.
    ///   - isReset: Whether it stands for commits a connection lost track of.
    public init(
        snapshot: UInt64 = 0, connectionID: UInt64 = 0, connectionName: String? = nil,
        objectChanges: Set<CollectionKey> = [], metadataChanges: Set<CollectionKey> = [],
        insertedKeys: Set<CollectionKey> = [], removedKeys: Set<CollectionKey> = [],
        removedCollections: Set<String> = [], allKeysRemoved: Bool = false, customObject: (any Sendable)? = nil,
        extensionChanges: [String: any Sendable] = [:], registeredExtensions: Set<String> = [],
        unregisteredExtensions: Set<String> = [], isReset: Bool = false
    ) {
        var folded: [CollectionKey: RowChange] = [:]
        // Siblings evict what a hand-made changeset names: it carries no values to share.
        for ck in objectChanges.union(insertedKeys) { folded[ck, default: RowChange()].object = .evict }
        for ck in metadataChanges.union(insertedKeys) { folded[ck, default: RowChange()].metadata = .evict }
        for ck in insertedKeys { folded[ck, default: RowChange()].inserted = true }
        storage = Storage(
            snapshot: snapshot, connectionID: connectionID, connectionName: connectionName,
            rows: ChangedRows(folded: folded, writes: RowWrites()), removedKeys: removedKeys,
            removedCollections: removedCollections, allKeysRemoved: allKeysRemoved, customObject: customObject,
            extensionChanges: extensionChanges, registeredExtensions: registeredExtensions,
            unregisteredExtensions: unregisteredExtensions, isReset: isReset, isExternal: false)
    }

    init(
        snapshot: UInt64, connectionID: UInt64, connectionName: String?, changes: consuming PendingChanges,
        customObject: (any Sendable)?, extensionChanges: [String: any Sendable],
        registeredExtensions: Set<String> = [], unregisteredExtensions: Set<String> = []
    ) {
        storage = Storage(
            snapshot: snapshot, connectionID: connectionID, connectionName: connectionName,
            rows: changes.changedRows, removedKeys: changes.removedKeys,
            removedCollections: changes.removedCollections, allKeysRemoved: changes.allKeysRemoved,
            customObject: customObject, extensionChanges: extensionChanges,
            registeredExtensions: registeredExtensions, unregisteredExtensions: unregisteredExtensions,
            isReset: false, isExternal: false)
    }

    /// Another process's commits up to `snapshot` that changed no row: nothing to apply.
    init(externalAdvanceTo snapshot: UInt64) {
        self.init(withoutChangesAt: snapshot, isReset: false, isExternal: true)
    }

    /// The changeset standing for every commit up to `snapshot` that a connection lost track of,
    /// or (`external`) that other processes made.
    init(resetTo snapshot: UInt64, external: Bool = false) {
        self.init(withoutChangesAt: snapshot, isReset: true, isExternal: external)
    }

    /// A changeset of no connection that lists no change.
    private init(withoutChangesAt snapshot: UInt64, isReset: Bool, isExternal: Bool) {
        storage = Storage(
            snapshot: snapshot, connectionID: 0, connectionName: nil,
            rows: ChangedRows(folded: [:], writes: RowWrites()),
            removedKeys: [], removedCollections: [], allKeysRemoved: false, customObject: nil, extensionChanges: [:],
            registeredExtensions: [], unregisteredExtensions: [], isReset: isReset, isExternal: isExternal)
    }

    /// The part of extension `name` in this commit, as the type its transaction object
    /// contributes (nil when it changed nothing, or the type differs).
    public func changes<Changes: Sendable>(for name: String, as type: Changes.Type) -> Changes? {
        extensionChanges[name] as? Changes
    }

    /// Whether the commit changed anything of extension `name` (its part, its registration or
    /// unregistration, or a reset).
    public func hasExtensionChange(_ name: String) -> Bool {
        isReset || extensionChanges[name] != nil || registeredExtensions.contains(name)
            || unregisteredExtensions.contains(name)
    }

    /// Whether the object of `ck` was set, replaced or touched (O(1)).
    func changesObject(_ ck: CollectionKey) -> Bool { rows.changes[ck]?.changesObject == true }

    /// Whether the metadata of `ck` was set, replaced, cleared or touched (O(1)).
    func changesMetadata(_ ck: CollectionKey) -> Bool { rows.changes[ck]?.changesMetadata == true }

    var isEmpty: Bool {
        rows.isEmpty && removedKeys.isEmpty && removedCollections.isEmpty
            && !allKeysRemoved && customObject == nil && extensionChanges.isEmpty && registeredExtensions.isEmpty
            && unregisteredExtensions.isEmpty && !isReset
    }
}

extension Changeset {
    /// A changeset's fields, made once at the commit and never changed.
    final class Storage: Sendable {
        let snapshot: UInt64
        let connectionID: UInt64
        let connectionName: String?
        let rows: ChangedRows
        let removedKeys: Set<CollectionKey>
        let removedCollections: Set<String>
        let allKeysRemoved: Bool
        let customObject: (any Sendable)?
        let extensionChanges: [String: any Sendable]
        let registeredExtensions: Set<String>
        let unregisteredExtensions: Set<String>
        let isReset: Bool
        let isExternal: Bool

        init(
            snapshot: UInt64, connectionID: UInt64, connectionName: String?, rows: ChangedRows,
            removedKeys: Set<CollectionKey>, removedCollections: Set<String>, allKeysRemoved: Bool,
            customObject: (any Sendable)?, extensionChanges: [String: any Sendable], registeredExtensions: Set<String>,
            unregisteredExtensions: Set<String>, isReset: Bool, isExternal: Bool
        ) {
            self.snapshot = snapshot
            self.connectionID = connectionID
            self.connectionName = connectionName
            self.rows = rows
            self.removedKeys = removedKeys
            self.removedCollections = removedCollections
            self.allKeysRemoved = allKeysRemoved
            self.customObject = customObject
            self.extensionChanges = extensionChanges
            self.registeredExtensions = registeredExtensions
            self.unregisteredExtensions = unregisteredExtensions
            self.isReset = isReset
            self.isExternal = isExternal
        }
    }
}

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
    ///
    /// Borrows `value` and copies it only under the policies that keep it: the default
    /// (containment) then costs a bulk write no copy of each row's value.
    static func forWrite(_ value: borrowing any Sendable, policy: ObjectPolicy) -> CacheUpdate {
        switch policy {
        case .containment:
            return .evict
        case .share:
            return .set(copy value)
        case .copy:
            if let copyable = (copy value) as? any CopyableObject { return .copy(copyable.copy()) }
            // Value types are copies already; other classes cannot be copied safely.
            return type(of: value) is AnyClass ? .evict : .set(copy value)
        }
    }

    /// The update a write under `policy` publishes for `value`, which may be absent (metadata).
    static func forWrite(_ value: borrowing (any Sendable)?, policy: ObjectPolicy) -> CacheUpdate {
        if policy == .containment { return .evict }
        guard let value = copy value else { return .set(nil) }
        return forWrite(value, policy: policy)
    }
}

/// What one transaction did to one row: one record per row keeps a bulk write to one hash insertion.
///
/// Stored in 16 bytes: a bulk write keeps one per row in a dictionary that grows as it goes, and
/// two inline `CacheUpdate?`s (an existential each) made every entry about 80 bytes and every
/// optional check a call into the enum's value witnesses. The common updates (`evict`, `touch`)
/// are a tag; only `set` and `copy` (the share and copy policies) put their values in a box.
struct RowChange {
    private enum Tag: UInt8 {
        case none, evict, touch, boxed
    }

    private var objectTag = Tag.none
    private var metadataTag = Tag.none
    /// Whether the row did not exist before the transaction.
    var inserted = false
    /// The `set`/`copy` updates; copied before a change when another `RowChange` shares it.
    private var box: RowChangeBox?

    /// How sibling caches update the object; nil when the object was not touched.
    var object: CacheUpdate? {
        get { Self.update(objectTag, box?[.object]) }
        set { objectTag = store(newValue, in: .object) }
    }

    /// How sibling caches update the metadata; nil when the metadata was not touched.
    var metadata: CacheUpdate? {
        get { Self.update(metadataTag, box?[.metadata]) }
        set { metadataTag = store(newValue, in: .metadata) }
    }

    init() {}

    /// A whole-row write: both values replaced, `inserted` when the row is new.
    ///
    /// Builds the tags straight from the two updates (the per-row path of a bulk write).
    init(object: CacheUpdate, metadata: CacheUpdate, inserted: Bool) {
        objectTag = Self.tag(of: object)
        metadataTag = Self.tag(of: metadata)
        self.inserted = inserted
        if objectTag == .boxed || metadataTag == .boxed {
            box = RowChangeBox(
                object: objectTag == .boxed ? object : nil, metadata: metadataTag == .boxed ? metadata : nil)
        }
    }

    /// A whole-row write whose sibling caches drop both values (the containment policies).
    init(evictingBothInserted inserted: Bool) {
        objectTag = .evict
        metadataTag = .evict
        self.inserted = inserted
    }

    /// Takes a later whole-row write: its two updates replace these; `inserted` stays true once set.
    mutating func overwrite(with later: RowChange) {
        let inserted = self.inserted || later.inserted
        self = later
        self.inserted = inserted
    }

    /// Whether the object was touched, without building its update.
    var changesObject: Bool { objectTag != .none }

    /// Whether the metadata was touched, without building its update.
    var changesMetadata: Bool { metadataTag != .none }

    private static func update(_ tag: Tag, _ boxed: CacheUpdate?) -> CacheUpdate? {
        switch tag {
        case .none: nil
        case .evict: .evict
        case .touch: .touch
        case .boxed: boxed
        }
    }

    private static func tag(of update: CacheUpdate?) -> Tag {
        guard let update else { return .none }
        return tag(of: update)
    }

    private static func tag(of update: CacheUpdate) -> Tag {
        switch update {
        case .evict: .evict
        case .touch: .touch
        case .set, .copy: .boxed
        }
    }

    /// Boxes a `set`/`copy` update, or drops a value boxed earlier so the box never keeps what the
    /// tag no longer says; returns the tag for `update`.
    private mutating func store(_ update: CacheUpdate?, in slot: RowChangeBox.Slot) -> Tag {
        let tag = Self.tag(of: update)
        if tag == .boxed {
            uniqueBox()[slot] = update
        } else if box?[slot] != nil {
            uniqueBox()[slot] = nil
        }
        return tag
    }

    private mutating func uniqueBox() -> RowChangeBox {
        if let box, isKnownUniquelyReferenced(&self.box) { return box }
        let copy = RowChangeBox(object: box?.object, metadata: box?.metadata)
        box = copy
        return copy
    }
}

/// The `set` and `copy` cache updates of one ``RowChange``.
final class RowChangeBox: @unchecked Sendable {
    /// Which of a row's two values an update is for.
    enum Slot {
        case object, metadata
    }

    // Safety: a box is mutated only through `RowChange.uniqueBox()`, i.e. while exactly one
    // `RowChange` holds it (copy on write); once shared, as in a committed ``ChangedRows``, it is
    // only read. Its values are `CacheUpdate`s, which carry Sendable values.
    var object: CacheUpdate?
    var metadata: CacheUpdate?

    init(object: CacheUpdate?, metadata: CacheUpdate?) {
        self.object = object
        self.metadata = metadata
    }

    subscript(slot: Slot) -> CacheUpdate? {
        get {
            switch slot {
            case .object: object
            case .metadata: metadata
            }
        }
        set {
            switch slot {
            case .object: object = newValue
            case .metadata: metadata = newValue
            }
        }
    }
}

/// The changes a read-write transaction has made so far.
struct PendingChanges {
    /// The changed rows, except the writes still in `pendingWrites`.
    private var folded: [CollectionKey: RowChange] = [:]
    /// Whole-row writes (`setObject`) not yet folded into `folded`, oldest first.
    ///
    /// A dictionary grown one row at a time moves every entry again at each doubling, into memory
    /// touched for the first time, several times the cost of one dictionary sized up front. A
    /// bulk write appends here instead and is folded once, into a
    /// dictionary reserved for all of it, when the commit (or another kind of change) needs it.
    private var pendingWrites = RowWrites()
    var removedKeys: Set<CollectionKey> = []
    var removedCollections: Set<String> = []
    var allKeysRemoved = false
    /// Whether anything was written to the file (touches are not).
    var hasDiskChanges = false
    /// How often extension flushes changed each row, counted only while they run (nil otherwise):
    /// a row changed again and again means flush rounds that do not converge.
    var flushWriteCounts: [CollectionKey: Int]?

    var isEmpty: Bool {
        folded.isEmpty && pendingWrites.isEmpty && removedKeys.isEmpty && removedCollections.isEmpty
            && !allKeysRemoved
    }

    /// The changed rows for a changeset, folded when first read.
    var changedRows: ChangedRows { ChangedRows(folded: folded, writes: pendingWrites) }

    /// Records a whole-row write: both values replaced, `inserted` when the row is new.
    mutating func recordWrite(_ ck: CollectionKey, object: CacheUpdate, metadata: CacheUpdate, inserted: Bool) {
        if flushWriteCounts != nil { flushWriteCounts?[ck, default: 0] += 1 }
        pendingWrites.append(ck, RowChange(object: object, metadata: metadata, inserted: inserted))
    }

    /// Records a whole-row write under the containment policies: sibling caches drop both values.
    ///
    /// Takes the key: a writer's last use of it, so its strings move into the record.
    mutating func recordEvictingWrite(_ ck: consuming CollectionKey, inserted: Bool) {
        if flushWriteCounts != nil { flushWriteCounts?[copy ck, default: 0] += 1 }
        pendingWrites.append(ck, RowChange(evictingBothInserted: inserted))
    }

    /// Changes the record of one row in place (replacing one value, touching).
    mutating func updateRow(_ ck: CollectionKey, _ body: (inout RowChange) -> Void) {
        if flushWriteCounts != nil { flushWriteCounts?[ck, default: 0] += 1 }
        foldPendingWrites()
        body(&folded[ck, default: RowChange()])
    }

    /// Whether a row of `collection` was inserted by this transaction.
    func insertedRows(in collection: String) -> Bool {
        folded.contains { $0.key.collection == collection && $0.value.inserted }
            || pendingWrites.contains { $0.key.collection == collection && $0.change.inserted }
    }

    /// Whether any row was inserted by this transaction.
    var hasInsertedRows: Bool {
        folded.values.contains { $0.inserted } || pendingWrites.contains { $0.change.inserted }
    }

    private mutating func foldPendingWrites() {
        guard !pendingWrites.isEmpty else { return }
        Self.fold(pendingWrites, into: &folded)
        pendingWrites = RowWrites()
    }

    /// Applies `writes` in order: a later write replaces both values and keeps `inserted`.
    static func fold(
        _ writes: RowWrites, into rows: inout [CollectionKey: RowChange]
    ) {
        guard !writes.isEmpty else { return }
        rows.reserveCapacity(rows.count + writes.count)
        for write in writes {
            rows[write.key, default: RowChange()].overwrite(with: write.change)
        }
    }

    mutating func noteRemoved(_ ck: CollectionKey) {
        if flushWriteCounts != nil { flushWriteCounts?[ck, default: 0] += 1 }
        foldPendingWrites()
        folded[ck] = nil
        removedKeys.insert(ck)
        hasDiskChanges = true
    }

    mutating func noteRemovedCollection(_ collection: String) {
        if flushWriteCounts != nil {
            flushWriteCounts?[CollectionKey(collection: collection, key: ""), default: 0] += 1
        }
        foldPendingWrites()
        folded = folded.filter { $0.key.collection != collection }
        removedKeys = removedKeys.filter { $0.collection != collection }
        removedCollections.insert(collection)
        hasDiskChanges = true
    }

    mutating func noteRemovedAll() {
        let counts = flushWriteCounts
        self = PendingChanges()
        flushWriteCounts = counts
        allKeysRemoved = true
        hasDiskChanges = true
    }
}
