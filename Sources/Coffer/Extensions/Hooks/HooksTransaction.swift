/// Calls a ``Hooks``' closures for one transaction.
final class HooksTransaction: ExtensionTransaction {
    private let context: ExtensionContext
    private let hooks: Hooks

    init(context: ExtensionContext, hooks: Hooks) {
        self.context = context
        self.hooks = hooks
    }

    func willInsert(_ row: ExtensionRow) throws {
        try modify(hooks.willModify, row, [.inserted, .objectChanged, .metadataChanged])
    }

    func didInsert(_ row: ExtensionRow) throws {
        try modify(hooks.didModify, row, [.inserted, .objectChanged, .metadataChanged])
    }

    func willUpdate(_ row: ExtensionRow) throws {
        try modify(hooks.willModify, row, [.updated, .objectChanged, .metadataChanged])
    }

    func didUpdate(_ row: ExtensionRow) throws {
        try modify(hooks.didModify, row, [.updated, .objectChanged, .metadataChanged])
    }

    func willReplaceObject(_ row: ExtensionRow) throws {
        try modify(hooks.willModify, row, [.updated, .objectChanged])
    }

    func didReplaceObject(_ row: ExtensionRow) throws {
        try modify(hooks.didModify, row, [.updated, .objectChanged])
    }

    func willReplaceMetadata(_ row: ExtensionRow) throws {
        try modify(hooks.willModify, row, [.updated, .metadataChanged])
    }

    func didReplaceMetadata(_ row: ExtensionRow) throws {
        try modify(hooks.didModify, row, [.updated, .metadataChanged])
    }

    func didTouch(_ row: ExtensionRow, object: Bool, metadata: Bool) throws {
        // Neither inserted nor updated (YapDatabase's contract): code that reacts to `.updated`
        // as "the value changed" must not fire on a touch.
        var flags: Hooks.Flags = []
        if object { flags.insert(.objectTouched) }
        if metadata { flags.insert(.metadataTouched) }
        try modify(hooks.didModify, row, flags)
    }

    func willRemove(_ ck: CollectionKey, rowid: Int64) throws {
        try remove(hooks.willRemove, ck)
    }

    func didRemove(_ ck: CollectionKey, rowid: Int64) throws {
        try remove(hooks.didRemove, ck)
    }

    func removesEachRow(ofCollection collection: String) -> Bool {
        (hooks.willRemove != nil || hooks.didRemove != nil) && hooks.allowedCollections.isAllowed(collection)
    }

    func willRemoveAllCollections() throws {
        try removeAll(hooks.willRemoveAllRows)
    }

    func didRemoveAllCollections() throws {
        try removeAll(hooks.didRemoveAllRows)
    }

    // MARK: Calling

    private func modify(_ hook: Hooks.ModifyHook?, _ row: ExtensionRow, _ flags: Hooks.Flags) throws {
        guard let hook, hooks.allowedCollections.isAllowed(row.collectionKey.collection) else { return }
        let write = try context.writeTransaction()
        let modified = Hooks.ModifiedRow(
            transaction: write, collection: row.collectionKey.collection, key: row.collectionKey.key,
            lazyObject: shielded(row.object), lazyMetadata: shielded(row.metadata), flags: flags)
        try hook(modified)
    }

    private func remove(_ hook: Hooks.RemoveHook?, _ ck: CollectionKey) throws {
        guard let hook, hooks.allowedCollections.isAllowed(ck.collection) else { return }
        try hook(Hooks.RemovedRow(transaction: try context.writeTransaction(), collection: ck.collection, key: ck.key))
    }

    private func removeAll(_ hook: Hooks.RemoveAllRowsHook?) throws {
        guard let hook else { return }
        try hook(try context.writeTransaction())
    }

    /// A lazy value that throws `misuse` instead of touching a finished transaction, for values
    /// handed to user closures (which might keep them).
    private func shielded(_ value: LazyValue) -> LazyValue {
        if value.isLoaded { return LazyValue(try? value.value()) }
        return LazyValue { [context] in
            _ = try context.transaction()
            return try value.value()
        }
    }
}
