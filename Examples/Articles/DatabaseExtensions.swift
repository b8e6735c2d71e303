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

    do {
        let db = try openDatabase(in: directory, named: "rtree")  // harness
        let connection = try db.newConnection()  // harness
        struct Place: Codable, Sendable {
            var latitude: Double
            var longitude: Double
        }

        let places = RTreeIndex(
            setup: RTreeIndexSetup(columns: ["minLat", "maxLat", "minLon", "maxLon"]),
            handler: .object(Place.self) { row, box in
                box["minLat"] = row.object.latitude
                box["maxLat"] = row.object.latitude
                box["minLon"] = row.object.longitude
                box["maxLon"] = row.object.longitude
            },
            allowedCollections: .only(["places"]))
        try db.register(places, withName: "places")
        let handle = CollectionHandle<Place>("places")  // harness
        try connection.readWrite { tx in  // harness
            try tx.set(Place(latitude: 48.8566, longitude: 2.3522), forKey: "paris", in: handle)  // harness
            try tx.set(Place(latitude: 51.5072, longitude: -0.1276), forKey: "london", in: handle)  // harness
        }  // harness

        let paris = try connection.read { tx in
            let query = try DatabaseQuery(
                format: "WHERE minLat >= ? AND maxLat <= ? AND minLon >= ? AND maxLon <= ?", 48.8, 48.9, 2.2, 2.5)
            return try tx.rtreeIndex("places")?.keys(matching: query) ?? []
        }
        try expect(paris.map(\.key) == ["paris"], "found: \(paris)")  // harness
    }

    do {
        let db = try openDatabase(in: directory, named: "counter")  // harness
        let connection = try db.newConnection()  // harness
        try connection.readWrite { tx in  // harness
            try tx.set(Note(title: "a", body: ""), forKey: "n1", in: notes)  // harness
            try tx.set(Note(title: "b", body: ""), forKey: "n2", in: notes)  // harness
        }  // harness
        try db.register(RowCounter(), withName: "counter")
        let count = try connection.read { tx in
            try tx.extension("counter", as: RowCounterTransaction.self).count(inCollection: "notes")
        }
        try expect(count == 2, "counted \(count)")  // harness
        try connection.readWrite { tx in try tx.set(Note(title: "c", body: ""), forKey: "n3", in: notes) }  // harness
        try connection.readWrite { tx in try tx.removeObject(forKey: "n1", in: notes) }  // harness
        try connection.readWrite { tx in try tx.removeObject(forKey: "n2", in: notes) }  // harness
        let after = try connection.read { tx in  // harness
            try tx.extension("counter", as: RowCounterTransaction.self).count(inCollection: "notes")  // harness
        }  // harness
        try expect(after == 1, "counted \(after) after an insert and two removals")  // harness
    }
}

/// Counts the rows of each collection.
struct RowCounter: DatabaseExtension {
    let kind = "RowCounter"   // recorded in the file; its table is RowCounter_<name>

    func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        RowCounterState()
    }
}

final class RowCounterState: ExtensionConnectionState {
    func makeTransaction(_ context: ExtensionContext) -> any ExtensionTransaction {
        RowCounterTransaction(context: context)
    }
}

final class RowCounterTransaction: ExtensionTransaction {
    let context: ExtensionContext
    init(context: ExtensionContext) { self.context = context }

    var table: String { ExtensionTables.quote(context.registration.tableNames[0]) }

    func createTables() throws {
        try context.tables.execute(
            "CREATE TABLE IF NOT EXISTS \(table) (collection TEXT PRIMARY KEY, count INTEGER NOT NULL)")
    }

    func populate() throws {
        try context.tables.run(
            "INSERT INTO \(table) SELECT collection, COUNT(*) FROM database2 GROUP BY collection")
    }

    func didInsert(_ row: ExtensionRow) throws { try add(1, to: row.collection) }
    func didRemove(_ row: CollectionKey, rowid: Int64) throws { try add(-1, to: row.collection) }

    func willRemoveAll(inCollection collection: String) throws {
        try context.tables.run("DELETE FROM \(table) WHERE collection = ?", [.text(collection)])
    }

    func didRemoveAllCollections() throws {
        try context.tables.run("DELETE FROM \(table)")
    }

    /// The number of rows in `collection`.
    func count(inCollection collection: String) throws -> Int {
        let count = try context.tables.scalar("SELECT count FROM \(table) WHERE collection = ?", [.text(collection)])
        return Int(count?.int64Value ?? 0)
    }

    private func add(_ delta: Int64, to collection: String) throws {
        try context.tables.run("INSERT OR IGNORE INTO \(table) VALUES (?, 0)", [.text(collection)])
        try context.tables.run(
            "UPDATE \(table) SET count = count + ? WHERE collection = ?", [.integer(delta), .text(collection)])
    }
}
