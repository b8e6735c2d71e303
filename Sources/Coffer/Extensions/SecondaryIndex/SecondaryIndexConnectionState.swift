/// A secondary index's state on one connection: its SQL, built once.
final class SecondaryIndexConnectionState: ExtensionConnectionState {
    let index: SecondaryIndex
    let sql: SecondaryIndexSQL

    init(index: SecondaryIndex, registeredName: String) {
        self.index = index
        self.sql = SecondaryIndexSQL(registeredName: registeredName, setup: index.setup)
    }

    func makeTransaction(_ context: ExtensionContext) -> any ExtensionTransaction {
        DerivedTableMaintainer(SecondaryIndexTransaction(context: context, index: index, sql: sql))
    }
}
