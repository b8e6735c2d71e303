import CofferSQLite
import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// The namespace of the extension suites, so `swift test --filter Extensions` selects them all.
enum Extensions {
    /// The code of the ``DatabaseError`` `body` throws; nil when it throws nothing or another error.
    static func code(_ body: () throws -> Void) -> DatabaseError.Code? {
        do {
            try body()
            return nil
        } catch let error as DatabaseError {
            return error.code
        } catch {
            return nil
        }
    }
}

/// An object for secondary-index tests.
struct Employee: Codable, Sendable, Equatable {
    var name: String
    var department: String
    var salary: Int
    var hired: Date
}

/// Metadata for secondary-index tests.
struct Badge: Codable, Sendable, Equatable {
    var level: Int
}

/// An object for full-text search tests.
struct Article: Codable, Sendable, Equatable {
    var title: String
    var body: String
}

extension Extensions {
    static let day: TimeInterval = 86_400
    static let epoch = Date(timeIntervalSinceReferenceDate: 700_000_000)

    static func employee(_ name: String, _ department: String, _ salary: Int, hiredDay: Int = 0) -> Employee {
        Employee(
            name: name, department: department, salary: salary, hired: epoch.addingTimeInterval(Double(hiredDay) * day))
    }

    /// Registers the test types on a database.
    static func registerCodecs(_ database: Database) {
        database.registerCodable(Employee.self, metadata: Badge.self, forCollection: "employees")
        database.registerCodable(Employee.self, metadata: Badge.self, forCollection: "contractors")
        database.registerCodable(Article.self, forCollection: "articles")
        database.registerCodable(Article.self, forCollection: "drafts")
    }

    static let employeeSetup = SecondaryIndexSetup([
        ("name", .text), ("department", .text), ("salary", .integer), ("hired", .real), ("level", .integer),
    ])

    /// An index over employees: object columns, plus the badge level from the metadata.
    ///
    /// Rows whose salary is negative get no entry. `calls` counts handler runs.
    static func employeeIndex(
        versionTag: String = "1", allowed: AllowList<String> = .only(["employees"]), calls: Locked<Int>? = nil
    ) -> SecondaryIndex {
        SecondaryIndex(
            setup: employeeSetup,
            handler: .byRow { _, values, _, _, object, metadata in
                calls?.withLock { $0 += 1 }
                guard let employee = object as? Employee, employee.salary >= 0 else { return }
                values["name"] = employee.name
                values["department"] = employee.department
                values["salary"] = employee.salary
                values["hired"] = employee.hired
                values["level"] = (metadata as? Badge)?.level
            },
            versionTag: versionTag, allowedCollections: allowed)
    }

    /// A full-text search over article titles and bodies.
    static func articleSearch(
        tokenizer: FullTextSearch.Tokenizer? = .porter, version: FullTextSearch.Version = .fts4,
        versionTag: String = "1", allowed: AllowList<String> = .only(["articles"]), calls: Locked<Int>? = nil
    ) -> FullTextSearch {
        FullTextSearch(
            columns: ["title", "body"],
            handler: .byObject(Article.self) { _, text, _, _, article in
                calls?.withLock { $0 += 1 }
                guard !article.title.isEmpty else { return }
                text["title"] = article.title
                text["body"] = article.body
            },
            version: version, tokenizer: tokenizer, versionTag: versionTag, allowedCollections: allowed)
    }

    /// The keys (sorted) of the employees `format` matches, through the index called `name`.
    static func keys(
        _ tx: ReadTransaction, in name: String = "staff", _ format: String, _ arguments: any DatabaseQueryArgument...
    ) throws -> [String] {
        let index = try #require(tx.secondaryIndex(name))
        return try index.keys(matching: DatabaseQuery(format: format, arguments: arguments)).map(\.key).sorted()
    }

    /// Whether a table (or index) named `name` exists in the file, as the transaction sees it.
    static func schemaHas(_ tx: ReadTransaction, _ name: String) throws -> Bool {
        let escaped = name.replacingOccurrences(of: "'", with: "''")
        return try tx.core.sqlite.scalarInt("SELECT COUNT(*) FROM sqlite_master WHERE name = '\(escaped)'") == 1
    }

    /// The number of `yap2` rows an extension keeps.
    static func yapRowCount(_ tx: ReadTransaction, _ name: String) throws -> Int64 {
        let escaped = name.replacingOccurrences(of: "'", with: "''")
        return try tx.core.sqlite.scalarInt("SELECT COUNT(*) FROM yap2 WHERE extension = '\(escaped)'") ?? 0
    }

    /// The rows of an index table as `rowid → [column values]`, read with plain SQL.
    static func indexTable(_ tx: ReadTransaction, _ table: String) throws -> [Int64: [DatabaseValue]] {
        let stmt = try tx.core.sqlite.prepare("SELECT * FROM \"\(table)\"")
        var rows: [Int64: [DatabaseValue]] = [:]
        while try stmt.step() {
            rows[stmt.int64(0)] = (1..<stmt.columnCount).map { DatabaseValue(stmt.value($0)) }
        }
        return rows
    }
}
