import Coffer

/// An extension that runs the SQL a test hands it through its ``ExtensionTables``, to see what
/// the platform lets an extension's statements touch.
///
/// It owns `probe_<name>` (a table with one column, `value`) unless given other tables.
struct SQLProbe: DatabaseExtension {
    /// The tables it declares; nil for its default table.
    var tables: [String]?
    /// Extensions whose tables it may read.
    var dependencies: Set<String> = []

    /// Fixed, so the default table is `probe_<name>`.
    var kind: String { "probe" }

    func tableNames(registeredName: String) -> [String] {
        tables ?? [defaultTableName(registeredName: registeredName)]
    }

    func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        StatelessConnectionState { SQLProbeTransaction(context: $0) }
    }
}

/// A probe's transaction object: the tables API, for the test to call.
final class SQLProbeTransaction: ExtensionTransaction {
    let context: ExtensionContext

    init(context: ExtensionContext) {
        self.context = context
    }

    /// The probe's statements.
    var tables: ExtensionTables { context.tables }

    func createTables() throws {
        for table in context.tables.names {
            try context.tables.execute("CREATE TABLE IF NOT EXISTS \(ExtensionTables.quote(table)) (\"value\")")
        }
    }
}
