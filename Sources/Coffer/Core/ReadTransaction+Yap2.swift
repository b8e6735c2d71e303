import CofferSQLite
import Foundation

/// Access to the `yap2` key/value table, where the core and extensions keep their own records.
extension ReadTransaction {
    /// The stored value of `(extension, key)` in `yap2`.
    func yapValue(extension name: String, key: String) throws -> SQLiteValue? {
        try mapSQLite {
            let stmt = try sqlite.cachedStatement(SQL.yapGet)
            defer { stmt.reset() }
            try stmt.bind(name, at: 1)
            try stmt.bind(key, at: 2)
            return try stmt.step() ? stmt.value(0) : nil
        }
    }

    func yapString(extension name: String, key: String) throws -> String? {
        switch try yapValue(extension: name, key: key) {
        case .text(let text): text
        case .blob(let data): String(decoding: data, as: UTF8.self)
        case .integer(let number): String(number)
        default: nil
        }
    }

    func yapInt(extension name: String, key: String) throws -> Int64? {
        switch try yapValue(extension: name, key: key) {
        case .integer(let number): number
        case .text(let text): Int64(text)
        default: nil
        }
    }
}

extension ReadWriteTransaction {
    func setYapValue(_ value: SQLiteValue, extension name: String, key: String) throws {
        try mapSQLite {
            let stmt = try sqlite.cachedStatement(SQL.yapSet)
            try stmt.bind(name, at: 1)
            try stmt.bind(key, at: 2)
            try stmt.bind(value: value, at: 3)
            try stmt.run()
        }
        changes.hasDiskChanges = true
    }

    func removeYapValues(extension name: String) throws {
        try mapSQLite {
            let stmt = try sqlite.cachedStatement(SQL.yapRemoveExtension)
            try stmt.bind(name, at: 1)
            try stmt.run()
        }
        changes.hasDiskChanges = true
    }
}

extension ReadWriteTransaction {
    func removeYapValue(extension name: String, key: String) throws {
        try mapSQLite {
            let stmt = try sqlite.cachedStatement(SQL.yapRemove)
            try stmt.bind(name, at: 1)
            try stmt.bind(key, at: 2)
            try stmt.run()
        }
    }
}
