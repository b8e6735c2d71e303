/// An extension registered with a ``Database``: derived data (an index, a view, a search
/// table) kept up to date inside the same transactions as the rows it derives from.
///
/// An extension has three parts, mirroring the core (DESIGN.md §7): this value (the
/// configuration, registered once per database), a per-connection state, and a
/// per-transaction object that receives a hook for every write. Coffer's built-in extensions
/// conform; the requirements are internal to the library.
public protocol DatabaseExtension: Sendable {}

/// What every built-in extension implements (internal: extensions touch SQLite directly).
protocol ExtensionImplementation: DatabaseExtension {
    /// A stable name for the kind of extension, recorded in the file ("SecondaryIndex", "Hooks", …).
    var kind: String { get }
    /// The implementation's format version; a change repopulates the extension.
    var classVersion: Int { get }
    /// The user's version tag; a change repopulates the extension.
    var versionTag: String { get }
    /// Whether the extension keeps tables in the file (and a record in `yap2`).
    var isPersistent: Bool { get }
    /// The tables the extension owns under `registeredName` (dropped by name when it is orphaned).
    func tableNames(registeredName: String) -> [String]
    /// Creates the extension's state for one connection.
    func makeConnectionState(registeredName: String) -> any ExtensionConnectionState
}

/// An extension's state on one connection (YapDatabaseExtensionConnection).
protocol ExtensionConnectionState: AnyObject {
    /// The object that serves one transaction on this connection.
    func makeTransaction(_ context: ExtensionContext) -> any ExtensionTransaction
    /// Another connection committed `changes` (this extension's part of a changeset).
    func noteCommitted(_ changes: (any Sendable)?)
    /// Drops caches the state can rebuild.
    func flushMemory()
}

extension ExtensionConnectionState {
    func noteCommitted(_ changes: (any Sendable)?) {}
    func flushMemory() {}
}

/// An extension's part of one transaction (YapDatabaseExtensionTransaction).
///
/// Write hooks run in registration order, inside the SQLite transaction: anything a hook
/// writes commits or rolls back with the rows. A throwing hook rolls the whole transaction back.
protocol ExtensionTransaction: AnyObject {
    /// Creates the extension's tables if they do not exist.
    func createTables() throws
    /// Fills the extension from every existing row (the tables exist and are empty).
    func populate() throws
    /// Drops the extension's tables.
    func dropTables() throws

    func willInsert(_ row: ExtensionRow) throws
    func didInsert(_ row: ExtensionRow) throws
    func willUpdate(_ row: ExtensionRow) throws
    func didUpdate(_ row: ExtensionRow) throws
    func willReplaceObject(_ row: ExtensionRow) throws
    func didReplaceObject(_ row: ExtensionRow) throws
    func willReplaceMetadata(_ row: ExtensionRow) throws
    func didReplaceMetadata(_ row: ExtensionRow) throws
    func didTouch(_ row: ExtensionRow, object: Bool, metadata: Bool) throws
    func willRemove(_ ck: CollectionKey, rowid: Int64) throws
    func didRemove(_ ck: CollectionKey, rowid: Int64) throws
    /// Whether removing every row of `collection` must be reported row by row (`willRemove` and
    /// `didRemove` for each) instead of by `willRemoveAll(inCollection:)`; when any extension says
    /// so, every extension gets the per-row calls for that removal.
    func removesEachRow(ofCollection collection: String) -> Bool
    func willRemoveAll(inCollection collection: String) throws
    func didRemoveAll(inCollection collection: String) throws
    func willRemoveAllCollections() throws
    func didRemoveAllCollections() throws

    /// Writes anything buffered, just before the SQLite commit.
    func flushPendingChanges() throws
    /// This extension's part of the changeset (nil when it changed nothing).
    func changesForCommit() -> (any Sendable)?
    func didCommit()
    func didRollback()
}

extension ExtensionTransaction {
    func createTables() throws {}
    func populate() throws {}
    func dropTables() throws {}
    func willInsert(_ row: ExtensionRow) throws {}
    func didInsert(_ row: ExtensionRow) throws {}
    func willUpdate(_ row: ExtensionRow) throws {}
    func didUpdate(_ row: ExtensionRow) throws {}
    func willReplaceObject(_ row: ExtensionRow) throws {}
    func didReplaceObject(_ row: ExtensionRow) throws {}
    func willReplaceMetadata(_ row: ExtensionRow) throws {}
    func didReplaceMetadata(_ row: ExtensionRow) throws {}
    func didTouch(_ row: ExtensionRow, object: Bool, metadata: Bool) throws {}
    func willRemove(_ ck: CollectionKey, rowid: Int64) throws {}
    func didRemove(_ ck: CollectionKey, rowid: Int64) throws {}
    func removesEachRow(ofCollection collection: String) -> Bool { false }
    func willRemoveAll(inCollection collection: String) throws {}
    func didRemoveAll(inCollection collection: String) throws {}
    func willRemoveAllCollections() throws {}
    func didRemoveAllCollections() throws {}
    func flushPendingChanges() throws {}
    func changesForCommit() -> (any Sendable)? { nil }
    func didCommit() {}
    func didRollback() {}
}
