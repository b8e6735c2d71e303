/// A full-text search's state on one connection: its SQL, built once.
final class FullTextSearchConnectionState: ExtensionConnectionState {
    let search: FullTextSearch
    let sql: FullTextSearchSQL

    init(search: FullTextSearch, registeredName: String) {
        self.search = search
        self.sql = FullTextSearchSQL(registeredName: registeredName, search: search)
    }

    func makeTransaction(_ context: ExtensionContext) -> any ExtensionTransaction {
        DerivedTableMaintainer(FullTextSearchTransaction(context: context, search: search, sql: sql))
    }
}
