/// An R*Tree index's state on one connection: its SQL, built once.
final class RTreeIndexConnectionState: ExtensionConnectionState {
    let index: RTreeIndex
    let sql: RTreeIndexSQL

    init(index: RTreeIndex, registeredName: String) {
        self.index = index
        self.sql = RTreeIndexSQL(registeredName: registeredName, setup: index.setup)
    }

    func makeTransaction(_ context: ExtensionContext) -> any ExtensionTransaction {
        DerivedTableMaintainer(RTreeIndexTransaction(context: context, index: index, sql: sql))
    }
}
