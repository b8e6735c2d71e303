extension Hooks {
    /// The row a ``Hooks/willModify`` or ``Hooks/didModify`` closure is called with.
    ///
    /// Object and metadata are decoded only when read (a touch or a metadata-only replace does
    /// not need the object), so reading them can throw.
    public struct ModifiedRow {
        /// The live write transaction, to read and write other rows (writes run the hooks again).
        public let transaction: ReadWriteTransaction
        /// The row's collection.
        public let collection: String
        /// The row's key.
        public let key: String
        /// What the write did to the row.
        public let flags: Flags
        /// The row's object, undecoded until read.
        public let lazyObject: LazyValue
        /// The row's metadata, undecoded until read.
        public let lazyMetadata: LazyValue

        /// Creates a row by hand, for calling a hook in a test.
        public init(
            transaction: ReadWriteTransaction, collection: String, key: String, object: (any Sendable)?,
            metadata: (any Sendable)?, flags: Flags
        ) {
            self.init(
                transaction: transaction, collection: collection, key: key, lazyObject: LazyValue(object),
                lazyMetadata: LazyValue(metadata), flags: flags)
        }

        init(
            transaction: ReadWriteTransaction, collection: String, key: String, lazyObject: LazyValue,
            lazyMetadata: LazyValue, flags: Flags
        ) {
            self.transaction = transaction
            self.collection = collection
            self.key = key
            self.lazyObject = lazyObject
            self.lazyMetadata = lazyMetadata
            self.flags = flags
        }

        /// The row's object (the new one before a write, the stored one after).
        /// - Throws: ``DatabaseError`` when the stored bytes do not decode.
        public var object: (any Sendable)? {
            get throws { try lazyObject.value() }
        }

        /// The row's metadata (nil when it has none).
        /// - Throws: ``DatabaseError`` when the stored bytes do not decode.
        public var metadata: (any Sendable)? {
            get throws { try lazyMetadata.value() }
        }

        /// The row's object as `T`, or nil when it is of another type (``LazyValue/value(as:)``).
        public func object<T>(as type: T.Type) throws -> T? { try lazyObject.value(as: T.self) }

        /// The row's metadata as `T`, or nil when absent or of another type.
        public func metadata<T>(as type: T.Type) throws -> T? { try lazyMetadata.value(as: T.self) }
    }

    /// The row a ``Hooks/willRemove`` or ``Hooks/didRemove`` closure is called with.
    public struct RemovedRow {
        /// The live write transaction (before the removal the row can still be read through it).
        public let transaction: ReadWriteTransaction
        /// The row's collection.
        public let collection: String
        /// The row's key.
        public let key: String

        /// Creates a row by hand, for calling a hook in a test.
        public init(transaction: ReadWriteTransaction, collection: String, key: String) {
            self.transaction = transaction
            self.collection = collection
            self.key = key
        }
    }

    /// A closure around a row insert, update, replace or touch, given the row.
    public typealias ModifyHook = @Sendable (_ row: ModifiedRow) throws -> Void
    /// A closure around the removal of one row, given the row.
    public typealias RemoveHook = @Sendable (_ row: RemovedRow) throws -> Void

    /// The positional form of ``willModify``, kept for code written against it.
    public var willModifyRow: ModifyRowHook? {
        get { willModify.map(Self.positional) }
        set { willModify = newValue.map(Self.oneValue) }
    }

    /// The positional form of ``didModify``, kept for code written against it.
    public var didModifyRow: ModifyRowHook? {
        get { didModify.map(Self.positional) }
        set { didModify = newValue.map(Self.oneValue) }
    }

    /// The positional form of ``willRemove``, kept for code written against it.
    public var willRemoveRow: RemoveRowHook? {
        get { willRemove.map(Self.positional) }
        set { willRemove = newValue.map(Self.oneValue) }
    }

    /// The positional form of ``didRemove``, kept for code written against it.
    public var didRemoveRow: RemoveRowHook? {
        get { didRemove.map(Self.positional) }
        set { didRemove = newValue.map(Self.oneValue) }
    }

    private static func positional(_ hook: @escaping ModifyHook) -> ModifyRowHook {
        { tx, collection, key, object, metadata, flags in
            try hook(
                ModifiedRow(
                    transaction: tx, collection: collection, key: key, lazyObject: object, lazyMetadata: metadata,
                    flags: flags))
        }
    }

    private static func oneValue(_ hook: @escaping ModifyRowHook) -> ModifyHook {
        { row in try hook(row.transaction, row.collection, row.key, row.lazyObject, row.lazyMetadata, row.flags) }
    }

    private static func positional(_ hook: @escaping RemoveHook) -> RemoveRowHook {
        { tx, collection, key in try hook(RemovedRow(transaction: tx, collection: collection, key: key)) }
    }

    private static func oneValue(_ hook: @escaping RemoveRowHook) -> RemoveHook {
        { row in try hook(row.transaction, row.collection, row.key) }
    }
}
