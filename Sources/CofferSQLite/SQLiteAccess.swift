internal import CSQLCipher

/// One request SQLite makes of an authorizer while compiling a statement, so a policy can
/// decide from names alone whether the statement may touch what it names.
///
/// SQLite passes up to four strings whose meaning depends on the action; they are stored here
/// under names that hold for every action, with the per-action mapping below. The one
/// irregular code, `SQLITE_ALTER_TABLE` (database in the 3rd argument, table in the 4th), is
/// normalised so that `name` is the table and `database` the schema, as for the others.
///
/// | Action | `name` | `detail` |
/// |---|---|---|
/// | createIndex, createTempIndex, dropIndex, dropTempIndex | index | the index's table |
/// | createTrigger, createTempTrigger, dropTrigger, dropTempTrigger | trigger | the trigger's table |
/// | createTable, createTempTable, dropTable, dropTempTable, insert, delete, analyze | table | – |
/// | createView, createTempView, dropView, dropTempView | view | – |
/// | read, update | table | column (`ROWID` for the rowid) |
/// | createVirtualTable, dropVirtualTable | table | module (`fts4`, `rtree`) |
/// | alterTable | table | – |
/// | pragma | pragma | its argument, if any |
/// | transaction | `BEGIN`, `COMMIT` or `ROLLBACK` | – |
/// | savepoint | `BEGIN`, `RELEASE` or `ROLLBACK` | savepoint |
/// | attach | file name | – |
/// | detach | schema name | – |
/// | reindex | index | – |
/// | function | – | function |
/// | select, recursive | – | – |
///
/// Related SQLite documentation: https://www.sqlite.org/c3ref/c_alter_table.html
package struct SQLiteAccess: Sendable, Equatable, CustomStringConvertible {
    /// What the statement wants to do.
    package var action: Action
    /// The object the action names: a table, index, trigger, view, pragma, file, schema or
    /// transaction verb (see the table in the type's documentation).
    package var name: String?
    /// The second object: an index's or trigger's table, a column, a module, a function,
    /// a savepoint or a pragma's argument.
    package var detail: String?
    /// The schema the action happens in ("main", "temp" or an attached name); nil for actions
    /// that belong to no schema, such as select, function, transaction or attach.
    package var database: String?
    /// The innermost trigger or view whose body makes the request; nil for the statement's own SQL.
    package var triggerOrView: String?

    /// Builds a request from its parts, as the authorizer callback does (and tests, to compare).
    package init(
        action: Action, name: String? = nil, detail: String? = nil, database: String? = nil,
        triggerOrView: String? = nil
    ) {
        self.action = action
        self.name = name
        self.detail = detail
        self.database = database
        self.triggerOrView = triggerOrView
    }

    /// Builds a request from the callback's raw arguments, in SQLite's order.
    init(code: Int32, _ third: String?, _ fourth: String?, _ fifth: String?, _ sixth: String?) {
        let action = Action(code: code)
        if action == .alterTable {
            self.init(action: action, name: fourth, database: third ?? fifth, triggerOrView: sixth)
        } else {
            self.init(action: action, name: third, detail: fourth, database: fifth, triggerOrView: sixth)
        }
    }

    /// The table (or view) the action is about, so a policy keyed on table names can judge
    /// every action that has one; nil for actions that name no table (pragma, function, …).
    ///
    /// For an index or trigger this is the table it belongs to, not the index or trigger itself.
    package var tableName: String? {
        switch action {
        case .createIndex, .createTempIndex, .dropIndex, .dropTempIndex,
            .createTrigger, .createTempTrigger, .dropTrigger, .dropTempTrigger:
            return detail
        case .createTable, .createTempTable, .dropTable, .dropTempTable,
            .createView, .createTempView, .dropView, .dropTempView,
            .insert, .delete, .read, .update, .analyze, .alterTable,
            .createVirtualTable, .dropVirtualTable:
            return name
        case .pragma, .select, .transaction, .attach, .detach, .reindex, .function, .savepoint, .recursive,
            .other:
            return nil
        }
    }

    /// The column a read or update names, so a policy can hide single columns.
    package var columnName: String? {
        action == .read || action == .update ? detail : nil
    }

    /// The index an index action or REINDEX names.
    package var indexName: String? {
        switch action {
        case .createIndex, .createTempIndex, .dropIndex, .dropTempIndex, .reindex: name
        default: nil
        }
    }

    /// A short English rendering for error messages, such as `insert into "t"`.
    ///
    /// A pragma's argument is left out: `PRAGMA key = '…'` would put a passphrase in a log.
    package var description: String {
        var text: String
        switch action {
        case .createIndex, .createTempIndex, .dropIndex, .dropTempIndex,
            .createTrigger, .createTempTrigger, .dropTrigger, .dropTempTrigger:
            text = "\(action.verb) \(quoted(name)) on \(quoted(detail))"
        case .createVirtualTable, .dropVirtualTable:
            text = "\(action.verb) \(quoted(name)) using \(quoted(detail))"
        case .read, .update:
            text = "\(action.verb) \(quoted(name)).\(quoted(detail))"
        case .function:
            text = "\(action.verb) \(quoted(detail))"
        case .savepoint:
            text = "\(action.verb) \(name ?? "") \(quoted(detail))"
        case .select, .recursive:
            text = action.verb
        case .transaction:
            text = "\(action.verb) \(name ?? "")"
        case .other(let code):
            text = "\(action.verb) \(code) \(quoted(name)) \(quoted(detail))"
        case .createTable, .createTempTable, .dropTable, .dropTempTable,
            .createView, .createTempView, .dropView, .dropTempView,
            .insert, .delete, .analyze, .alterTable, .pragma, .attach, .detach, .reindex:
            text = "\(action.verb) \(quoted(name))"
        }
        if let triggerOrView { text += " within \(quoted(triggerOrView))" }
        return text
    }

    /// Quotes a name as SQL does, so an empty or odd name stays visible in a message.
    private func quoted(_ name: String?) -> String {
        guard let name else { return "NULL" }
        var text = "\""
        for character in name {
            if character == "\"" { text.append("\"") }
            text.append(character)
        }
        return text + "\""
    }
}

extension SQLiteAccess {
    /// The kind of request, one case per SQLite authorizer action code.
    ///
    /// Related SQLite documentation: https://www.sqlite.org/c3ref/c_alter_table.html
    package enum Action: Sendable, Hashable {
        /// `SQLITE_CREATE_INDEX`.
        case createIndex
        /// `SQLITE_CREATE_TABLE`.
        case createTable
        /// `SQLITE_CREATE_TEMP_INDEX`.
        case createTempIndex
        /// `SQLITE_CREATE_TEMP_TABLE`.
        case createTempTable
        /// `SQLITE_CREATE_TEMP_TRIGGER`.
        case createTempTrigger
        /// `SQLITE_CREATE_TEMP_VIEW`.
        case createTempView
        /// `SQLITE_CREATE_TRIGGER`.
        case createTrigger
        /// `SQLITE_CREATE_VIEW`.
        case createView
        /// `SQLITE_DELETE`.
        case delete
        /// `SQLITE_DROP_INDEX`.
        case dropIndex
        /// `SQLITE_DROP_TABLE`.
        case dropTable
        /// `SQLITE_DROP_TEMP_INDEX`.
        case dropTempIndex
        /// `SQLITE_DROP_TEMP_TABLE`.
        case dropTempTable
        /// `SQLITE_DROP_TEMP_TRIGGER`.
        case dropTempTrigger
        /// `SQLITE_DROP_TEMP_VIEW`.
        case dropTempView
        /// `SQLITE_DROP_TRIGGER`.
        case dropTrigger
        /// `SQLITE_DROP_VIEW`.
        case dropView
        /// `SQLITE_INSERT`.
        case insert
        /// `SQLITE_PRAGMA`.
        case pragma
        /// `SQLITE_READ`: one request per column read (none for a table whose columns are not read).
        case read
        /// `SQLITE_SELECT`.
        case select
        /// `SQLITE_TRANSACTION`.
        case transaction
        /// `SQLITE_UPDATE`: one request per column set.
        case update
        /// `SQLITE_ATTACH`.
        case attach
        /// `SQLITE_DETACH`.
        case detach
        /// `SQLITE_ALTER_TABLE`.
        case alterTable
        /// `SQLITE_REINDEX`, also requested by CREATE INDEX.
        case reindex
        /// `SQLITE_ANALYZE`.
        case analyze
        /// `SQLITE_CREATE_VTABLE`.
        case createVirtualTable
        /// `SQLITE_DROP_VTABLE`.
        case dropVirtualTable
        /// `SQLITE_FUNCTION`.
        case function
        /// `SQLITE_SAVEPOINT`.
        case savepoint
        /// `SQLITE_RECURSIVE`.
        case recursive
        /// A code this enum does not name (`SQLITE_COPY`, or one a later SQLite adds).
        case other(Int32)

        /// Maps SQLite's action code to its case.
        package init(code: Int32) {
            switch code {
            case SQLITE_CREATE_INDEX: self = .createIndex
            case SQLITE_CREATE_TABLE: self = .createTable
            case SQLITE_CREATE_TEMP_INDEX: self = .createTempIndex
            case SQLITE_CREATE_TEMP_TABLE: self = .createTempTable
            case SQLITE_CREATE_TEMP_TRIGGER: self = .createTempTrigger
            case SQLITE_CREATE_TEMP_VIEW: self = .createTempView
            case SQLITE_CREATE_TRIGGER: self = .createTrigger
            case SQLITE_CREATE_VIEW: self = .createView
            case SQLITE_DELETE: self = .delete
            case SQLITE_DROP_INDEX: self = .dropIndex
            case SQLITE_DROP_TABLE: self = .dropTable
            case SQLITE_DROP_TEMP_INDEX: self = .dropTempIndex
            case SQLITE_DROP_TEMP_TABLE: self = .dropTempTable
            case SQLITE_DROP_TEMP_TRIGGER: self = .dropTempTrigger
            case SQLITE_DROP_TEMP_VIEW: self = .dropTempView
            case SQLITE_DROP_TRIGGER: self = .dropTrigger
            case SQLITE_DROP_VIEW: self = .dropView
            case SQLITE_INSERT: self = .insert
            case SQLITE_PRAGMA: self = .pragma
            case SQLITE_READ: self = .read
            case SQLITE_SELECT: self = .select
            case SQLITE_TRANSACTION: self = .transaction
            case SQLITE_UPDATE: self = .update
            case SQLITE_ATTACH: self = .attach
            case SQLITE_DETACH: self = .detach
            case SQLITE_ALTER_TABLE: self = .alterTable
            case SQLITE_REINDEX: self = .reindex
            case SQLITE_ANALYZE: self = .analyze
            case SQLITE_CREATE_VTABLE: self = .createVirtualTable
            case SQLITE_DROP_VTABLE: self = .dropVirtualTable
            case SQLITE_FUNCTION: self = .function
            case SQLITE_SAVEPOINT: self = .savepoint
            case SQLITE_RECURSIVE: self = .recursive
            default: self = .other(code)
            }
        }

        /// The words an error message uses for the action.
        var verb: String {
            switch self {
            case .createIndex: "create index"
            case .createTable: "create table"
            case .createTempIndex: "create temp index"
            case .createTempTable: "create temp table"
            case .createTempTrigger: "create temp trigger"
            case .createTempView: "create temp view"
            case .createTrigger: "create trigger"
            case .createView: "create view"
            case .delete: "delete from"
            case .dropIndex: "drop index"
            case .dropTable: "drop table"
            case .dropTempIndex: "drop temp index"
            case .dropTempTable: "drop temp table"
            case .dropTempTrigger: "drop temp trigger"
            case .dropTempView: "drop temp view"
            case .dropTrigger: "drop trigger"
            case .dropView: "drop view"
            case .insert: "insert into"
            case .pragma: "pragma"
            case .read: "read"
            case .select: "select"
            case .transaction: "transaction"
            case .update: "update"
            case .attach: "attach"
            case .detach: "detach"
            case .alterTable: "alter table"
            case .reindex: "reindex"
            case .analyze: "analyze"
            case .createVirtualTable: "create virtual table"
            case .dropVirtualTable: "drop virtual table"
            case .function: "call function"
            case .savepoint: "savepoint"
            case .recursive: "recursive query"
            case .other: "action"
            }
        }
    }
}
