/// Closures that run around every write, inside the write transaction (YapDatabase's
/// `YapDatabaseHooks`): a place for side effects that must commit or roll back with the rows —
/// audit records, cascades, validation.
///
/// ```swift
/// var hooks = Hooks(allowedCollections: .only(["orders"]))
/// hooks.didRemove = { row in
///     try row.transaction.removeObject(forKey: row.key, inCollection: "order-lines")
/// }
/// try database.register(hooks, withName: "cascade")
/// ```
///
/// Each closure receives one value describing the row (``ModifiedRow``, ``RemovedRow``), whose
/// `transaction` is the live ``ReadWriteTransaction``: the closure may read and write through it
/// (writes run the hooks again). Object and metadata are decoded only if read. The positional
/// closures of earlier versions (``willModifyRow`` and the like) set the same hooks. Throwing from a closure fails the write call and rolls the whole transaction back.
/// Closures run on the writing connection's queue, in registration order with other extensions,
/// and must not keep the transaction or the lazy values.
///
/// Hooks keep no tables: they are not persistent and are never populated. `removeObjects(forKeys:)`
/// and `removeAllObjects(inCollection:)` report one removal per existing row; an explicit touch
/// reaches `didModifyRow` with only the touched ``Flags``.
public struct Hooks: DatabaseExtension {
    /// A closure around a row insert, update, replace or touch, in the positional form of
    /// ``willModifyRow``; prefer ``ModifyHook``.
    public typealias ModifyRowHook =
        @Sendable (
            _ transaction: ReadWriteTransaction, _ collection: String, _ key: String, _ object: LazyValue,
            _ metadata: LazyValue, _ flags: Flags
        ) throws -> Void
    /// A closure around the removal of one row, in the positional form of ``willRemoveRow``;
    /// prefer ``RemoveHook``.
    public typealias RemoveRowHook =
        @Sendable (_ transaction: ReadWriteTransaction, _ collection: String, _ key: String) throws -> Void
    /// A closure around the removal of every row of every collection.
    public typealias RemoveAllRowsHook = @Sendable (_ transaction: ReadWriteTransaction) throws -> Void

    /// The collections whose writes call the closures; remove-all of every collection always does.
    public var allowedCollections: AllowList<String>
    /// Runs before a row is inserted, updated or replaced.
    ///
    /// Object and metadata are the new values (the stored ones for the part a replace keeps).
    /// Not called for touches.
    public var willModify: ModifyHook?
    /// Runs after a row was inserted, updated, replaced or touched, with the row's current values.
    public var didModify: ModifyHook?
    /// Runs before a row is removed (it can still be read).
    ///
    /// Also runs for each row `removeObjects(forKeys:inCollection:)` and
    /// `removeAllObjects(inCollection:)` remove, as in YapDatabase, so a cascade written here
    /// covers every way a row of an allowed collection goes.
    public var willRemove: RemoveHook?
    /// Runs after a row was removed (each row of a collection-wide removal too).
    public var didRemove: RemoveHook?
    /// Runs before `removeAllObjectsInAllCollections()` removes every row of the database.
    ///
    /// The per-row closures do not run for that removal.
    public var willRemoveAllRows: RemoveAllRowsHook?
    /// Runs after `removeAllObjectsInAllCollections()` removed every row of the database.
    public var didRemoveAllRows: RemoveAllRowsHook?

    /// Creates hooks without closures; set the ones you need before registering.
    public init(allowedCollections: AllowList<String> = .all) {
        self.allowedCollections = allowedCollections
    }
}

extension Hooks {
    /// "Hooks", as YapDatabase records it.
    public var kind: String { "Hooks" }

    /// False: hooks keep no tables and are never populated.
    public var isPersistent: Bool { false }
    /// ``allowedCollections``.
    public var derivedCollections: AllowList<String>? { allowedCollections }

    /// Hooks keep nothing per connection; the state only makes the per-transaction callers.
    public func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        StatelessConnectionState { HooksTransaction(context: $0, hooks: self) }
    }
}
