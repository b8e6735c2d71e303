import Coffer
import CofferTestSupport
import Foundation
import Synchronization

/// The namespace of the suites that write extensions from outside the module, so
/// `swift test --filter ExtensionKit` selects them all.
enum ExtensionKit {
    /// The error `body` throws as a ``DatabaseError``; nil when it throws nothing or another error.
    static func databaseError(_ body: () throws -> Void) -> DatabaseError? {
        do {
            try body()
            return nil
        } catch let error as DatabaseError {
            return error
        } catch {
            return nil
        }
    }

    /// The code of the ``DatabaseError`` `body` throws; nil when it throws nothing or another error.
    static func code(_ body: () throws -> Void) -> DatabaseError.Code? {
        databaseError(body)?.code
    }

    /// The counter registered as `name` in `tx`.
    static func counter(_ tx: ReadTransaction, _ name: String = "counter") throws -> RowCounterTransaction {
        try tx.extension(name, as: RowCounterTransaction.self)
    }

    /// Writes `count` rows `<prefix><i>` into `collection`.
    static func addRows(_ tx: ReadWriteTransaction, _ count: Int, in collection: String, prefix: String = "k") throws {
        for i in 0..<count { try tx.setObject("v\(i)", forKey: "\(prefix)\(i)", inCollection: collection) }
    }
}

/// A value shared between a test and the closures and extension states it hands to Coffer.
final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    /// The current value.
    var value: Value { mutex.withLock { $0 } }

    /// Changes the value under the lock.
    func update<T>(_ body: (inout Value) -> T) -> T {
        mutex.withLock { body(&$0) }
    }
}

extension Shared where Value == [String] {
    /// Appends one entry.
    func append(_ entry: String) {
        update { $0.append(entry) }
    }
}

/// Counts the connection states made for one extension configuration and those still alive.
final class StateCensus: Sendable {
    private let counts = Shared((made: 0, alive: 0))

    /// States made so far.
    var made: Int { counts.value.made }
    /// States not released yet.
    var alive: Int { counts.value.alive }

    func noteMade() {
        counts.update {
            $0.made += 1
            $0.alive += 1
        }
    }

    func noteReleased() {
        counts.update { $0.alive -= 1 }
    }
}

/// A keyed database in its own directory whose file a test can also read behind Coffer's back,
/// to see tables and `yap2` records the public API does not show.
final class KitDatabase {
    /// The open database (released before the directory goes).
    private(set) var database: Database
    let key: Data
    let options: DatabaseOptions
    let url: URL
    let directory: TemporaryDirectory

    init() throws {
        directory = TemporaryDirectory("coffer-extkit")
        url = directory.file("db.sqlite")
        key = TestSupport.randomKey()
        options = TestSupport.rawKeyOptions(key)
        database = try Database(url: url, options: options)
    }

    func connection() throws -> Connection {
        try database.newConnection()
    }

    /// Closes the database and opens the file again (extensions registered before are not).
    func reopen() throws {
        if !database.isClosed { try database.close() }
        database = try TestSupport.open(url, options: options)
    }

    /// The names of the tables (and indexes) in the file whose name starts with `prefix`, sorted.
    func schemaNames(withPrefix prefix: String) throws -> [String] {
        let raw = try RawDatabaseFile(url: url, rawKey: key, pageSize: 4096)
        let pattern = prefix.replacingOccurrences(of: "'", with: "''")
        return try raw.texts(
            "SELECT name FROM sqlite_master WHERE substr(name, 1, \(prefix.utf8.count)) = '\(pattern)' ORDER BY name")
    }

    /// The `yap2` keys the file holds for extension `name`, sorted.
    func records(ofExtension name: String) throws -> [String] {
        let raw = try RawDatabaseFile(url: url, rawKey: key, pageSize: 4096)
        let escaped = name.replacingOccurrences(of: "'", with: "''")
        return try raw.texts("SELECT key FROM yap2 WHERE extension = '\(escaped)' ORDER BY key")
    }

    /// A summary of everything in the file: the schema, every row of every table, the user version.
    func fingerprint() throws -> [String] {
        let raw = try RawDatabaseFile(url: url, rawKey: key, pageSize: 4096)
        var summary = try raw.texts(
            "SELECT type || ' ' || name || ' ' || ifnull(sql, '') FROM sqlite_master ORDER BY type, name")
        for table in try raw.texts("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            let quoted = ExtensionTables.quote(table)
            let columns = try raw.texts("PRAGMA table_info(\(quoted))", column: 1)
            let row = (["rowid"] + columns).map { "quote(\(ExtensionTables.quote($0)))" }.joined(
                separator: " || ' ' || ")
            summary += try raw.texts("SELECT \(row) FROM \(quoted) ORDER BY rowid").map { "\(table): \($0)" }
        }
        summary += try raw.texts("PRAGMA user_version").map { "user_version \($0)" }
        return summary
    }
}
