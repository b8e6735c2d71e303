// The code of DatabaseExtensions.md, block by block, each in a `do { }` block with a database of
// its own (two blocks register an index under the same name).

import Coffer
import Foundation

/// Runs the article's blocks in order, each on a new database in `directory`.
func databaseExtensions(in directory: URL) throws {
    struct Note: Codable, Sendable {  // harness
        var title: String  // harness
        var body: String  // harness
    }  // harness
    let notes = CollectionHandle<Note>("notes")  // harness

    do {
        let db = try openDatabase(in: directory, named: "register")  // harness
        let index = SecondaryIndex(  // harness
            setup: SecondaryIndexSetup([("title", .text)]),  // harness
            handler: .object(Note.self) { row, values in values["title"] = row.object.title },  // harness
            versionTag: "1")  // harness
        try db.register(index, withName: "staff")      // blocks until the index is populated
        try expect(db.registeredExtension("staff") != nil, "the index is registered")  // harness
    }

    do {
        let db = try openDatabase(in: directory, named: "hooks")  // harness
        let connection = try db.newConnection()  // harness
        var hooks = Hooks(allowedCollections: .only(["orders"]))
        hooks.didRemove = { row in
            try row.transaction.removeObject(forKey: row.key, inCollection: "order-lines")   // cascade
        }
        try db.register(hooks, withName: "cascade")
        try connection.readWrite { tx in  // harness
            try tx.setObject("order", forKey: "o1", inCollection: "orders")  // harness
            try tx.setObject("line", forKey: "o1", inCollection: "order-lines")  // harness
        }  // harness
        try connection.readWrite { tx in try tx.removeObject(forKey: "o1", inCollection: "orders") }  // harness
        let lines = try connection.read { tx in try tx.numberOfKeys(inCollection: "order-lines") }  // harness
        try expect(lines == 0, "removing the order removed its lines")  // harness
    }

    do {
        let db = try openDatabase(in: directory, named: "index")  // harness
        let connection = try db.newConnection()  // harness
        // harness: rows written before the index exists, as JSON of the same shape through the
        // default codec, which the typed handler decodes into an Employee.
        struct Staff: Codable, Sendable {  // harness
            var department: String  // harness
            var salary: Int  // harness
        }  // harness
        try connection.readWrite { tx in  // harness
            try tx.setObject(Staff(department: "eng", salary: 150_000), forKey: "ada", inCollection: "employees")  // harness
            try tx.setObject(Staff(department: "eng", salary: 90_000), forKey: "bob", inCollection: "employees")  // harness
            try tx.setObject(Staff(department: "ops", salary: 120_000), forKey: "cy", inCollection: "employees")  // harness
        }  // harness
        struct Employee: Codable, Sendable {
            var department: String
            var salary: Int
        }

        let index = SecondaryIndex(
            setup: SecondaryIndexSetup([("department", .text), ("salary", .integer)]),
            handler: .object(Employee.self) { row, values in
                values["department"] = row.object.department
                values["salary"] = row.object.salary
            },
            versionTag: "1",
            allowedCollections: .only(["employees"]))
        try db.register(index, withName: "staff")

        let wellPaid = try connection.read { tx in
            let query = try DatabaseQuery(format: "WHERE department = ? AND salary >= ?", "eng", 100_000)
            return try tx.secondaryIndex("staff")?.keys(matching: query) ?? []
        }
        let picked = try connection.read { tx in
            let query = try DatabaseQuery(format: "WHERE salary IN (?) AND department = ?", .list(90_000, 150_000.0), "eng")
            return try tx.secondaryIndex("staff")?.keys(matching: query) ?? []
        }
        let payroll = try connection.read { tx in
            try tx.secondaryIndex("staff")?.performAggregateQuery(
                DatabaseQuery.aggregate("SUM(salary)", format: "WHERE department = ?", "eng"))
        }
        try expect(wellPaid.map(\.key) == ["ada"], "wellPaid: \(wellPaid)")  // harness
        try expect(Set(picked.map(\.key)) == ["ada", "bob"], "picked: \(picked)")  // harness
        try expect(payroll?.int64Value == 240_000, "payroll: \(String(describing: payroll))")  // harness
    }

    do {
        let db = try openDatabase(in: directory, named: "search")  // harness
        let connection = try db.newConnection()  // harness
        try connection.readWrite { tx in  // harness
            let body = "Coffer's files are encrypted page by page."  // harness
            try tx.set(Note(title: "At rest", body: body), forKey: "n7", in: notes)  // harness
        }  // harness
        let search = FullTextSearch(
            columns: ["title", "body"],
            handler: .object(Note.self) { row, text in
                text["title"] = row.object.title
                text["body"] = row.object.body
            },
            tokenizer: .porter,
            versionTag: "1")
        try db.register(search, withName: "notes_fts")

        try connection.read { tx in
            guard let fts = tx.fullTextSearch("notes_fts") else { return }
            try fts.enumerateKeys(matching: "encrypt*", snippet: .init(startMatch: "[", endMatch: "]")) {
                snippet, collection, key, stop in
                print(key, snippet)        // "n7 …files are [encrypted] page by page…"
            }
        }
        let found = try connection.read { tx in  // harness
            var keys: [String] = []  // harness
            try tx.fullTextSearch("notes_fts")?.enumerateKeys(matching: "encrypt*") { _, key, _ in keys.append(key) }  // harness
            return keys  // harness
        }  // harness
        try expect(found == ["n7"], "found: \(found)")  // harness
    }
}
