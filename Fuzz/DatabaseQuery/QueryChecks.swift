import Coffer
import CofferFuzzSupport
import CofferSQLite
import Foundation

/// `DatabaseQuery` on any format and arguments: it is made or throws `.invalidQuery`; a query it
/// makes binds one value per argument element, and whenever SQLite compiles the SQL an extension
/// would run, SQLite counts exactly as many parameters as the query binds.
///
/// SQLite is the oracle because it is what runs the SQL: a placeholder Coffer's scanner misses or
/// invents would bind values to the wrong parameters.
enum QueryChecks {
    /// An in-memory database with the columns the seeds name (no key: nothing is stored).
    static let oracle: SQLiteConnection? = {
        guard let connection = try? SQLiteConnection(path: ":memory:") else { return nil }
        try? connection.execute(
            "CREATE TABLE t (a, b, c, d, e, f, name TEXT, title TEXT, department TEXT, salary, level, hired)")
        return connection
    }()

    static func check(_ run: QueryCase) {
        let query: DatabaseQuery
        do {
            if let function = run.function {
                query = try DatabaseQuery.aggregate(function, format: run.format, arguments: run.arguments)
            } else {
                query = try DatabaseQuery(format: run.format, arguments: run.arguments)
            }
        } catch let error as DatabaseError {
            fuzzCheck(error.code == .invalidQuery, "making a query threw \(error.code): \(error)")
            return
        } catch {
            fuzzCheck(false, "making a query threw \(type(of: error))")
            return
        }
        fuzzCheck(
            query.bindingCount == run.expectedBindings,
            "\(query.bindingCount) bindings, expected \(run.expectedBindings)")
        fuzzCheck(query.format == run.format && query.aggregateFunction == run.function, "the query lost its input")
        fuzzCheck(!query.sql.unicodeScalars.contains(";"), "the SQL holds a statement separator")
        let expands = run.arguments.contains { if case .list = $0 { true } else { false } }
        if !expands {
            fuzzCheck(query.sql == run.format, "SQL differs from a format without lists")
        }
        checkAgainstSQLite(query)
    }

    /// Prepares the SQL an extension would run; if it compiles, the parameter counts must agree.
    static func checkAgainstSQLite(_ query: DatabaseQuery) {
        guard let oracle else {
            fuzzCheck(false, "the in-memory oracle database cannot be opened")
            return
        }
        let head = query.aggregateFunction.map { "SELECT \($0) FROM t" } ?? "SELECT rowid FROM t"
        let text = query.sql.isEmpty ? head : head + " " + query.sql
        guard let statement = try? oracle.prepare(text) else { return }
        fuzzCheck(
            Int(statement.parameterCount) == query.bindingCount,
            "SQLite counts \(statement.parameterCount) parameter(s) in \(String(reflecting: text)); "
                + "the query binds \(query.bindingCount)")
    }
}
