/// Reaching registered extensions from a transaction (YapDatabase's `ext:`).
extension ReadTransaction {
    /// The transaction object of the extension registered as `name` (for example a secondary
    /// index's query interface), or nil when no such extension is registered.
    public func ext(_ name: String) -> AnyObject? {
        extensionTransaction(named: name).map { $0 as AnyObject }
    }

    /// The transaction object of the extension registered as `name`, as `T`.
    public func ext<T>(_ name: String, as type: T.Type) -> T? {
        ext(name) as? T
    }

    func extensionTransaction(named name: String) -> (any ExtensionTransaction)? {
        if let existing = extensionTransactions[name] { return existing }
        guard let entry = extensionEntries.first(where: { $0.name == name }) else { return nil }
        let state = core.extensionState(for: entry)
        let created = state.makeTransaction(ExtensionContext(transaction: self, registeredName: name))
        extensionTransactions[name] = created
        return created
    }

    /// Every registered extension's transaction object, in registration order.
    var hookReceivers: [any ExtensionTransaction] {
        extensionEntries.isEmpty ? [] : extensionEntries.compactMap { extensionTransaction(named: $0.name) }
    }

    /// The created extension transactions in registration order.
    var createdExtensionTransactions: [(name: String, transaction: any ExtensionTransaction)] {
        extensionEntries.compactMap { entry in extensionTransactions[entry.name].map { (entry.name, $0) } }
    }
}

extension ReadWriteTransaction {
    /// Lets every extension write what it buffered, then collects its part of the changeset.
    func flushExtensions() throws -> [String: any Sendable] {
        var changes: [String: any Sendable] = [:]
        for (name, transaction) in createdExtensionTransactions {
            try transaction.flushPendingChanges()
            if let change = transaction.changesForCommit() { changes[name] = change }
        }
        return changes
    }

    /// Drops extensions recorded in the file but not registered this run (the first changing write).
    func dropOrphanedExtensions() throws {
        for name in connection.database.takeOrphanedExtensionNames() {
            try dropRecordedTables(ofExtension: name)
            connection.database.logger.info(
                "Coffer: dropped the tables of an extension that was not registered again",
                metadata: ["extension": "\(name)"])
        }
    }
}
