/// The platform's side of a derived table in one transaction: it receives the hooks and passes
/// them to the engine, while readers get the table's query object.
final class DerivedTableMaintainer<Table: DerivedTableTransaction>: ExtensionTransaction {
    let table: Table

    init(_ table: Table) {
        self.table = table
    }

    var queryInterface: AnyObject { table }

    func createTables() throws { try table.createTables() }
    func populate() throws { try table.populate() }
    func didInsert(_ row: ExtensionRow) throws { try table.didInsert(row) }
    func didUpdate(_ row: ExtensionRow) throws { try table.didUpdate(row) }
    func didReplaceObject(_ row: ExtensionRow) throws { try table.didReplaceObject(row) }
    func didReplaceMetadata(_ row: ExtensionRow) throws { try table.didReplaceMetadata(row) }
    func didTouch(_ row: ExtensionRow, object: Bool, metadata: Bool) throws {
        try table.didTouch(row, object: object, metadata: metadata)
    }
    func didRemove(_ row: CollectionKey, rowid: Int64) throws { try table.didRemove(row, rowid: rowid) }
    func willRemoveAll(inCollection collection: String) throws { try table.willRemoveAll(inCollection: collection) }
    func didRemoveAllCollections() throws { try table.didRemoveAllCollections() }
}
