/// An extension registered with a ``Database``: derived data (an index, a view, a search
/// table) kept up to date inside the same transactions as the rows it derives from.
///
/// An extension has three parts, mirroring the core (DESIGN.md §7): this value (the
/// configuration, registered once per database and shared by every connection), a state per
/// connection (``ExtensionConnectionState``: caches, prepared work), and an object per
/// transaction (``ExtensionTransaction``) that receives a hook for every write and offers the
/// extension's queries through ``ReadTransaction/extension(_:as:)``. Coffer's own extensions
/// (``SecondaryIndex``, ``FullTextSearch``, ``RTreeIndex``, ``Hooks``) are written against these
/// protocols only; the DatabaseExtensions article builds a small one step by step.
///
/// Every requirement but ``kind`` and ``makeConnectionState(_:)`` has a default.
public protocol DatabaseExtension: Sendable {
    /// A stable name for the kind of extension, recorded in the file; a different kind under the
    /// same registered name rebuilds the extension, and it prefixes the default table name.
    ///
    /// Spell it out (`"RowCounter"`) rather than deriving it from the type's name: renaming the
    /// type would otherwise rebuild the extension at the next launch.
    var kind: String { get }
    /// The implementation's format version; a change rebuilds the extension. Defaults to 1.
    var classVersion: Int { get }
    /// The user's version tag; a change rebuilds the extension. Defaults to "".
    var versionTag: String { get }
    /// Whether the extension keeps tables in the file (and a record in `yap2`). Defaults to true.
    ///
    /// A non-persistent extension is populated at every registration and keeps what it derives
    /// in memory, in a ``MemoryTable`` from ``ExtensionRegistration/memoryTable(named:keyType:valueType:)``;
    /// registering it drops the tables an earlier persistent registration under its name left.
    var isPersistent: Bool { get }
    /// The registered names of the extensions this one reads or builds on. Defaults to none.
    ///
    /// Registering fails while one is missing; unregistering one unregisters this extension too,
    /// in the same transaction. Hooks run in registration order, so a dependency's hooks (and
    /// flushes) always run before its dependents'.
    var dependencies: Set<String> { get }
    /// The collections whose rows the extension derives its data from, when it can say; nil
    /// (the default) when it may read any.
    ///
    /// A change to a row of another collection does not reach the extension's per-row hooks
    /// (nor `willRemoveAll(inCollection:)` for another collection), which saves every such write
    /// the lookup of the row's rowid the hooks need; observation uses it to tell whether a commit
    /// may have changed what the extension answers. Read once, at registration.
    var derivedCollections: AllowList<String>? { get }
    /// The tables the extension owns when registered as `registeredName`.
    ///
    /// Its statements may touch only these tables, the shadow tables SQLite's virtual-table
    /// modules create for them (`<table>_content`, `<table>_node`, …) and the indexes on them,
    /// and read `database2`: ``ExtensionTables`` checks every statement with SQLite's authorizer.
    /// The names are recorded in the file, so the tables can be dropped when the extension is not
    /// registered again. Defaults to one table, `<kind>_<registeredName>` (``defaultTableName(registeredName:)``),
    /// for a persistent extension, and none otherwise.
    func tableNames(registeredName: String) -> [String]
    /// Creates the extension's state for one connection (called on first use on each connection).
    func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState
    /// Called once the transaction that unregistered the extension registered as `registeredName`
    /// (or a dependency of it) committed: stop work it runs outside transactions. Defaults to nothing.
    func didUnregister(registeredName: String)
}

extension DatabaseExtension {
    /// Version 1.
    public var classVersion: Int { 1 }
    /// No tag.
    public var versionTag: String { "" }
    /// Persistent.
    public var isPersistent: Bool { true }
    /// No dependencies.
    public var dependencies: Set<String> { [] }
    /// Unknown: any collection.
    public var derivedCollections: AllowList<String>? { nil }

    /// Does nothing.
    public func didUnregister(registeredName: String) {}

    /// One table named `<kind>_<registeredName>` for a persistent extension, none otherwise.
    public func tableNames(registeredName: String) -> [String] {
        isPersistent ? [defaultTableName(registeredName: registeredName)] : []
    }

    /// `<kind>_<registeredName>`: the name of an extension's table when it declares no other.
    public func defaultTableName(registeredName: String) -> String {
        kind + "_" + registeredName
    }
}

/// An extension's state on one connection (YapDatabaseExtensionConnection).
///
/// Used only on its connection's queue, one transaction at a time. Every requirement but
/// ``makeTransaction(_:)`` has a default that does nothing.
public protocol ExtensionConnectionState: AnyObject {
    /// What this extension contributes to a changeset; `Never` when it contributes nothing.
    associatedtype Changes: Sendable = Never

    /// Creates the object that serves one transaction on this connection.
    func makeTransaction(_ context: ExtensionContext) -> any ExtensionTransaction
    /// Another connection committed a transaction in which this extension changed something.
    ///
    /// Called before this connection's next transaction sees the commit, so caches stay coherent.
    func noteCommitted(_ changes: Changes)
    /// Releases what the state can rebuild (``Connection/flushMemory(_:)``, a key rotation).
    func flushMemory()
    /// The connection lost track of some commits (it fell further behind than the database keeps
    /// changesets, or another process wrote): drop every cache. Defaults to ``flushMemory()``.
    func reset()
}

extension ExtensionConnectionState {
    /// Does nothing.
    public func noteCommitted(_ changes: Changes) {}
    /// Does nothing.
    public func flushMemory() {}
    /// Calls ``flushMemory()``.
    public func reset() { flushMemory() }

    /// Delivers a changeset's part for this extension; false when it is not of this state's
    /// `Changes` type (the transaction object contributes another type), so it was dropped.
    func deliver(_ changes: any Sendable) -> Bool {
        guard let changes = changes as? Changes else { return false }
        noteCommitted(changes)
        return true
    }
}

/// An extension's part of one transaction (YapDatabaseExtensionTransaction).
///
/// Write hooks run in registration order, inside the SQLite transaction: anything a hook
/// writes commits or rolls back with the rows, and a throwing hook rolls the whole transaction
/// back. Every requirement has a default that does nothing, so an extension implements only the
/// hooks it needs. The object is also the extension's query interface — readers get it from
/// ``ReadTransaction/extension(_:as:)`` — unless ``queryInterface`` names another.
public protocol ExtensionTransaction: AnyObject {
    /// What this extension contributes to the commit's changeset; `Never` when nothing.
    associatedtype Changes: Sendable = Never

    /// The object readers get from ``ReadTransaction/extension(_:as:)``: by default the
    /// transaction object itself; return another to keep the hooks out of the extension's API.
    var queryInterface: AnyObject { get }

    /// Creates the extension's tables if they do not exist (every registration of a persistent extension).
    func createTables() throws
    /// Fills the extension from every existing row: its tables exist and are empty (a new or
    /// rebuilt persistent extension, and every registration of a non-persistent one).
    func populate() throws

    /// Before a row is inserted; `row.rowid` is 0 (not known yet).
    func willInsert(_ row: ExtensionRow) throws
    /// After a row was inserted.
    func didInsert(_ row: ExtensionRow) throws
    /// Before an existing row's object and metadata are replaced.
    func willUpdate(_ row: ExtensionRow) throws
    /// After an existing row's object and metadata were replaced.
    func didUpdate(_ row: ExtensionRow) throws
    /// Before an existing row's object alone is replaced (the metadata is the stored one).
    func willReplaceObject(_ row: ExtensionRow) throws
    /// After an existing row's object alone was replaced.
    func didReplaceObject(_ row: ExtensionRow) throws
    /// Before an existing row's metadata alone is replaced (the object is the stored one).
    func willReplaceMetadata(_ row: ExtensionRow) throws
    /// After an existing row's metadata alone was replaced.
    func didReplaceMetadata(_ row: ExtensionRow) throws
    /// After a row was touched: marked changed without new values.
    func didTouch(_ row: ExtensionRow, object: Bool, metadata: Bool) throws
    /// Before one row is removed (it can still be read).
    func willRemove(_ row: CollectionKey, rowid: Int64) throws
    /// After one row was removed.
    func didRemove(_ row: CollectionKey, rowid: Int64) throws
    /// Whether removing every row of `collection` must be reported row by row (`willRemove` and
    /// `didRemove` for each) instead of by ``willRemoveAll(inCollection:)``; when any extension
    /// says so, every extension gets the per-row calls for that removal.
    func removesEachRow(ofCollection collection: String) -> Bool
    /// Before every row of `collection` is removed (the rows can still be read).
    func willRemoveAll(inCollection collection: String) throws
    /// After every row of `collection` was removed.
    func didRemoveAll(inCollection collection: String) throws
    /// Before every row of every collection is removed.
    func willRemoveAllCollections() throws
    /// After every row of every collection was removed.
    func didRemoveAllCollections() throws

    /// Whether the extension buffered work that ``flushPendingChanges()`` must still write.
    ///
    /// Before the commit, the transaction calls ``flushPendingChanges()`` on every extension
    /// that has pending work, in registration order, and repeats these rounds until none has:
    /// a flush may write rows, whose hooks give other extensions (or itself) new work.
    var hasPendingChanges: Bool { get }
    /// Writes what the extension buffered, just before the SQLite commit.
    func flushPendingChanges() throws
    /// This extension's part of the changeset, asked once after the last flush round (nil when
    /// it changed nothing). It reaches the extension's state on every other connection
    /// (``ExtensionConnectionState/noteCommitted(_:)``) and observers (``Changeset/changes(for:as:)``).
    func changesForCommit() -> Changes?
    /// The transaction committed.
    func didCommit()
    /// The transaction rolled back: drop what was buffered.
    func didRollback()
}

extension ExtensionTransaction {
    /// The transaction object itself.
    public var queryInterface: AnyObject { self }
    /// Does nothing.
    public func createTables() throws {}
    /// Does nothing.
    public func populate() throws {}
    /// Does nothing.
    public func willInsert(_ row: ExtensionRow) throws {}
    /// Does nothing.
    public func didInsert(_ row: ExtensionRow) throws {}
    /// Does nothing.
    public func willUpdate(_ row: ExtensionRow) throws {}
    /// Does nothing.
    public func didUpdate(_ row: ExtensionRow) throws {}
    /// Does nothing.
    public func willReplaceObject(_ row: ExtensionRow) throws {}
    /// Does nothing.
    public func didReplaceObject(_ row: ExtensionRow) throws {}
    /// Does nothing.
    public func willReplaceMetadata(_ row: ExtensionRow) throws {}
    /// Does nothing.
    public func didReplaceMetadata(_ row: ExtensionRow) throws {}
    /// Does nothing.
    public func didTouch(_ row: ExtensionRow, object: Bool, metadata: Bool) throws {}
    /// Does nothing.
    public func willRemove(_ row: CollectionKey, rowid: Int64) throws {}
    /// Does nothing.
    public func didRemove(_ row: CollectionKey, rowid: Int64) throws {}
    /// False: one call for the whole collection.
    public func removesEachRow(ofCollection collection: String) -> Bool { false }
    /// Does nothing.
    public func willRemoveAll(inCollection collection: String) throws {}
    /// Does nothing.
    public func didRemoveAll(inCollection collection: String) throws {}
    /// Does nothing.
    public func willRemoveAllCollections() throws {}
    /// Does nothing.
    public func didRemoveAllCollections() throws {}
    /// False.
    public var hasPendingChanges: Bool { false }
    /// Does nothing.
    public func flushPendingChanges() throws {}
    /// Nil.
    public func changesForCommit() -> Changes? { nil }
    /// Does nothing.
    public func didCommit() {}
    /// Does nothing.
    public func didRollback() {}

    /// ``changesForCommit()`` without its type, for the changeset.
    func erasedChangesForCommit() -> (any Sendable)? {
        changesForCommit()
    }
}
