/// The engine behind SecondaryIndex, FullTextSearch and RTreeIndex: values derived from each
/// row by a handler, kept in one table in step with every insert, update, replace, touch,
/// removal and remove-all, and rebuilt from every row when the definition changes.
///
/// A conforming query object (the extension's public transaction type) supplies its table's
/// statements, how to store one row's values, and (optionally) checks of its configuration;
/// the hooks come from this extension, and ``DerivedTableMaintainer`` hands them to the
/// platform, so the public type shows queries only. It is written against the public
/// extension protocol only.
protocol DerivedTableTransaction: AnyObject {
    /// The value type of the handler's dictionary (column name → value).
    associatedtype Value

    var context: ExtensionContext { get }
    /// An empty dictionary whose storage the next row's values reuse, instead of allocating (and
    /// growing) one per row.
    var spareValues: [String: Value] { get set }
    var handler: RowHandler<[String: Value]> { get }
    var allowedCollections: AllowList<String> { get }
    var derivedSQL: DerivedTableSQL { get }
    /// What the extension calls itself in errors ("secondary index", "full-text search", …).
    var displayKind: String { get }
    /// Checks the configuration before anything reaches SQL.
    func validate() throws
    /// Creates the table (``DerivedTableSQL/create`` by default).
    func createTable() throws
    /// Records kept beside the definition's fingerprint whenever it is recorded.
    var extraRecords: [String: DatabaseValue] { get }
    /// Stores the entry of `row` from `values`, which is not empty; a key of `values` that is not
    /// a column fails with ``unknownColumns(in:_:)`` (found by counting the columns looked up,
    /// so a row costs no extra pass over its values).
    func store(_ values: [String: Value], for row: ExtensionRow) throws
    /// Whether `column` is one the handler may set (to name the unknown ones in an error).
    func isColumn(_ column: String) -> Bool
}

/// The record under which the table definition is kept.
let derivedTableSetupKey = "setup"

extension DerivedTableTransaction {
    func validate() throws {}
    var extraRecords: [String: DatabaseValue] { [:] }

    func createTable() throws {
        try context.tables.execute(derivedSQL.create)
    }

    func createTables() throws {
        try validate()
        let recorded = try context.tables.record(forKey: derivedTableSetupKey)
        if let recorded, recorded != .text(derivedSQL.create) {
            // The definition changed under the same versionTag: the old table cannot serve it.
            try context.tables.execute(derivedSQL.drop)
            try createTable()
            try populate()
        } else {
            try createTable()
        }
        if recorded != .text(derivedSQL.create) {
            try context.tables.setRecord(.text(derivedSQL.create), forKey: derivedTableSetupKey)
            for (key, value) in extraRecords { try context.tables.setRecord(value, forKey: key) }
        }
    }

    func populate() throws {
        try context.tables.run(derivedSQL.deleteAll)
        try context.enumerateRows(
            in: allowedCollections, readingObject: handler.readsObject, readingMetadata: handler.readsMetadata
        ) { row in try reindex(row) }
    }

    func didInsert(_ row: ExtensionRow) throws { try update(row, .insert) }
    func didUpdate(_ row: ExtensionRow) throws { try update(row, .update) }
    func didReplaceObject(_ row: ExtensionRow) throws { try update(row, .replaceObject) }
    func didReplaceMetadata(_ row: ExtensionRow) throws { try update(row, .replaceMetadata) }

    func didTouch(_ row: ExtensionRow, object: Bool, metadata: Bool) throws {
        try update(row, .touch(object: object, metadata: metadata))
    }

    func didRemove(_ row: CollectionKey, rowid: Int64) throws {
        guard allowedCollections.isAllowed(row.collection) else { return }
        try context.tables.run(derivedSQL.deleteRowid, [.integer(rowid)])
    }

    func willRemoveAll(inCollection collection: String) throws {
        guard allowedCollections.isAllowed(collection) else { return }
        try context.tables.run(derivedSQL.deleteCollection, [.text(collection)])
    }

    func didRemoveAllCollections() throws {
        try context.tables.run(derivedSQL.deleteAll)
    }

    private func update(_ row: ExtensionRow, _ change: RowHandlerChange) throws {
        guard allowedCollections.isAllowed(row.collection), handler.runs(on: change) else { return }
        try reindex(row)
    }

    /// Re-derives the entry of `row`: the handler's values replace it, or no values remove it.
    func reindex(_ row: ExtensionRow) throws {
        var values = spareValues
        spareValues = [:]
        defer {
            values.removeAll(keepingCapacity: true)
            spareValues = values
        }
        try handler.fill(&values, for: row, in: context.transaction())
        guard !values.isEmpty else {
            try context.tables.run(derivedSQL.deleteRowid, [.integer(row.rowid)])
            return
        }
        try store(values, for: row)
    }

    /// The error for a handler that set columns the table does not have, for ``store(_:for:)``
    /// to throw once it found fewer of its columns than `values` holds.
    func unknownColumns(in values: [String: Value], _ row: ExtensionRow) -> DatabaseError {
        let unknown = values.keys.filter { !isColumn($0) }.sorted()
        return DatabaseError(
            .extensionFailure,
            "the handler of \(displayKind) \"\(context.registeredName)\" set unknown column(s) "
                + unknown.joined(separator: ", "),
            collection: row.collection, key: row.key)
    }

    /// Checks that the table is part of the transaction's snapshot before a query.
    /// - Throws: ``DatabaseError`` `.misuse` after the transaction ended, `.extensionFailure` when
    ///   the registration is not part of the transaction's snapshot.
    func checkQueryable() throws {
        guard try context.isRegisteredInSnapshot() else {
            throw DatabaseError(
                .extensionFailure,
                "\(displayKind) \"\(context.registeredName)\" is not registered in this transaction's snapshot")
        }
    }
}
