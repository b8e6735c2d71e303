/// Reaching registered extensions from a transaction (YapDatabase's `ext:`).
extension ReadTransaction {
    /// The transaction object of the extension registered as `name` (for example a secondary
    /// index's query interface), or nil when no such extension is registered.
    public func ext(_ name: String) -> AnyObject? {
        extensionTransaction(named: name)?.queryInterface
    }

    /// The transaction object of the extension registered as `name`, as `T`.
    public func ext<T>(_ name: String, as type: T.Type) -> T? {
        ext(name) as? T
    }

    /// The transaction object of the extension registered as `name`: its query interface.
    ///
    /// ```swift
    /// let counts = try tx.extension("rowCounter", as: RowCounterTransaction.self)
    /// ```
    /// - Throws: ``DatabaseError`` `.extensionFailure` when no extension is registered under
    ///   `name` or it is of another type, `.misuse` once the transaction has ended.
    public func `extension`<T>(_ name: String, as type: T.Type) throws -> T {
        try checkActive()
        guard let found = extensionTransaction(named: name)?.queryInterface else {
            throw DatabaseError(.extensionFailure, "no extension is registered as \"\(name)\"")
        }
        guard let typed = found as? T else {
            throw DatabaseError(
                .extensionFailure, "extension \"\(name)\" is a \(Swift.type(of: found)), not a \(T.self)")
        }
        return typed
    }

    func extensionTransaction(named name: String) -> (any ExtensionTransaction)? {
        if let existing = extensionTransactions[name] { return existing }
        guard let entry = extensionEntries.first(where: { $0.name == name }) else { return nil }
        return makeExtensionTransaction(for: entry)
    }

    func makeExtensionTransaction(for entry: ExtensionRegistry.Entry) -> any ExtensionTransaction {
        let state = core.extensionState(for: entry)
        let context = ExtensionContext(transaction: self, registration: entry.registration)
        extensionContexts.append(context)
        let created = state.makeTransaction(context)
        extensionTransactions[entry.name] = created
        return created
    }

    /// Every registered extension's transaction object, in registration order.
    var hookReceivers: [any ExtensionTransaction] {
        extensionEntries.isEmpty ? [] : extensionEntries.compactMap { extensionTransaction(named: $0.name) }
    }

    /// The transaction objects of the extensions that derive from `collection`'s rows, in
    /// registration order: the only ones a change to one of its rows is told of.
    ///
    /// The answer for the last collection asked is kept, since a bulk write asks for one
    /// collection row after row; registering or unregistering an extension forgets it.
    @inline(__always)
    func hookReceivers(forCollection collection: String) -> [any ExtensionTransaction] {
        // Inlined to here: most databases register no extension, and every row write asks.
        extensionEntries.isEmpty ? [] : registeredHookReceivers(forCollection: collection)
    }

    private func registeredHookReceivers(forCollection collection: String) -> [any ExtensionTransaction] {
        if let kept = keptHookReceivers, kept.collection == collection { return kept.receivers }
        let receivers = extensionEntries.compactMap { entry in
            entry.derivedCollections?.isAllowed(collection) == false ? nil : extensionTransaction(named: entry.name)
        }
        keptHookReceivers = (collection, receivers)
        return receivers
    }

    /// The created extension transactions in registration order.
    var createdExtensionTransactions: [(name: String, transaction: any ExtensionTransaction)] {
        extensionEntries.compactMap { entry in extensionTransactions[entry.name].map { (entry.name, $0) } }
    }
}

extension ReadWriteTransaction {
    /// How often flush rounds may change one row before they count as not converging.
    static let flushRewriteLimit = 1_000
    /// How many rounds in a row may claim pending work without changing a row.
    static let idleFlushRoundLimit = 100

    /// Runs flush rounds until no extension has pending work, then collects each extension's
    /// part of the changeset.
    ///
    /// A flush may write rows, whose hooks give extensions new work, so rounds repeat. A cascade
    /// that reaches new rows always finishes (there are finitely many); rounds fail only when
    /// they rewrite the same row past ``flushRewriteLimit`` or keep claiming work without
    /// changing anything.
    /// - Throws: ``DatabaseError`` `.extensionFailure` for rounds that do not converge, or what a flush throws.
    func flushExtensions() throws -> [String: any Sendable] {
        // Only extension transactions this one created have anything to flush or report.
        guard !extensionTransactions.isEmpty else { return [:] }
        changes.flushWriteCounts = [:]
        defer { changes.flushWriteCounts = nil }
        var idleRounds = 0
        while true {
            let pending = createdExtensionTransactions.filter { $0.transaction.hasPendingChanges }
            if pending.isEmpty { break }
            let mutationsBefore = core.mutationCount
            let writesBefore = changes.flushWriteCounts?.count ?? 0
            for (_, transaction) in pending where transaction.hasPendingChanges {
                try transaction.flushPendingChanges()
            }
            try checkFlushConverges(pending.map(\.name))
            let changedRows =
                core.mutationCount != mutationsBefore || (changes.flushWriteCounts?.count ?? 0) != writesBefore
            idleRounds = changedRows ? 0 : idleRounds + 1
            if idleRounds > Self.idleFlushRoundLimit {
                throw DatabaseError(
                    .extensionFailure,
                    "extension flushes did not converge: \(pending.map(\.name).joined(separator: ", ")) kept reporting "
                        + "pending work without changing a row for \(Self.idleFlushRoundLimit) rounds")
            }
        }
        var extensionChanges: [String: any Sendable] = [:]
        for (name, transaction) in createdExtensionTransactions {
            if let change = transaction.erasedChangesForCommit() { extensionChanges[name] = change }
        }
        return extensionChanges
    }

    private func checkFlushConverges(_ flushed: [String]) throws {
        guard let (row, count) = changes.flushWriteCounts?.max(by: { $0.value < $1.value }),
            count > Self.flushRewriteLimit
        else { return }
        throw DatabaseError(
            .extensionFailure,
            "extension flushes did not converge: \(flushed.joined(separator: ", ")) changed the same row more than "
                + "\(Self.flushRewriteLimit) times", collection: row.collection, key: row.key)
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
