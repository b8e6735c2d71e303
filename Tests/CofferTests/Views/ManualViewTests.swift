import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// ManualView's behaviour: every change method and what it records, the database's updates and
/// removes, misuse, rollback, registration and a model, each persistent and in memory.
///
/// YapDatabase has no test of its ManualView to port (its Testing folder tests the AutoView,
/// FilteredView and the change logic only): these tests follow its header's documented contract.
@Suite struct ManualViewTests {
    static let name = "playlist"

    static func view(_ tx: ReadTransaction) throws -> ManualViewTransaction {
        try tx.extension(name, as: ManualViewTransaction.self)
    }

    /// The row `key` of "songs" (or `collection`).
    static func row(_ key: String, _ collection: String = "songs") -> CollectionKey {
        CollectionKey(collection: collection, key: key)
    }

    /// Writes each of `rows`, its key as its object.
    static func write(_ rows: [CollectionKey], _ tx: ReadWriteTransaction) throws {
        for row in rows { try tx.setObject(row.key, forKey: row.key, inCollection: row.collection) }
    }

    /// The rows of each of `groups` in order, as `connection` reads them, checking that the
    /// counts and each row's group and index agree with the order.
    static func lists(_ connection: Connection, _ groups: [String]) throws -> [[CollectionKey]] {
        try connection.read { tx throws in
            let view = try view(tx)
            return try groups.map { group in
                var rows: [CollectionKey] = []
                try view.enumerateKeys(inGroup: group) { row, index, _ in
                    #expect(index == rows.count)
                    rows.append(row)
                }
                #expect(try view.numberOfItems(inGroup: group) == rows.count)
                for (index, row) in rows.enumerated() {
                    let place = try view.index(forKey: row.key, inCollection: row.collection)
                    #expect(place?.group == group && place?.index == index, "\(row) in \(group)")
                }
                return rows
            }
        }
    }

    /// A writer, a sibling connection and a long-lived reader of one manual view; each step
    /// commits a write and checks what all three see.
    final class Harness {
        let test: TestDatabase
        let writer: Connection
        let sibling: Connection
        let reader: Connection
        let groups: [String]
        private var mappings: ViewMappings
        private var shown: [[CollectionKey]]

        /// A database holding `rows`, with a manual view (empty) and the groups a reader shows.
        init(persistent: Bool, groups: [String], rows: [CollectionKey] = []) throws {
            let test = try TestDatabase()
            try test.database.register(ManualView(isPersistent: persistent), withName: ManualViewTests.name)
            let writer = try test.connection()
            try writer.readWrite { tx in try ManualViewTests.write(rows, tx) }
            let reader = try test.connection()
            _ = try reader.beginLongLivedReadTransaction()
            var mappings = ViewMappings(groups: groups, view: ManualViewTests.name)
            mappings.update(groupCounts: try reader.read { tx in try ManualViewTests.view(tx).groupCounts() })
            self.test = test
            self.writer = writer
            self.sibling = try test.connection()
            self.reader = reader
            self.groups = groups
            self.mappings = mappings
            self.shown = try ManualViewTests.lists(reader, groups)
        }

        /// Commits `body`, then checks that the commit recorded `expected` (when given), that
        /// the reader's changes applied to what it showed give what it shows now, and that every
        /// connection shows `model` (read after the commit, so `body` may build it).
        /// - Returns: the commit's records and the reader's changes.
        @discardableResult
        func step(
            records expected: [ViewChangeRecord]? = nil, model: @autoclosure () -> [[CollectionKey]],
            sourceLocation: SourceLocation = #_sourceLocation,
            _ body: (ManualViewTransaction, ReadWriteTransaction) throws -> Void
        ) throws -> (records: [ViewChangeRecord], changes: ViewChangeSet) {
            try writer.readWrite { tx in try body(ManualViewTests.view(tx), tx) }
            let changesets = try reader.beginLongLivedReadTransaction()
            let records = changesets.flatMap { $0.viewChangeRecords(inView: ManualViewTests.name) }
            if let expected { #expect(records == expected, sourceLocation: sourceLocation) }
            let counts = try reader.read { tx in try ManualViewTests.view(tx).groupCounts() }
            let changes = ViewChanges.advance(&mappings, groupCounts: counts, records: records)
            let now = try ManualViewTests.lists(reader, groups)
            #expect(!changes.isReset, sourceLocation: sourceLocation)
            let applied = try ViewChangesApplier.apply(
                sections: changes.sectionChanges, rows: changes.rowChanges, to: shown)
            #expect(applied == now, "the reader's changes", sourceLocation: sourceLocation)
            shown = now
            for connection in [reader, writer, sibling] {
                #expect(try ManualViewTests.lists(connection, groups) == model(), sourceLocation: sourceLocation)
            }
            return (records, changes)
        }
    }
}

// MARK: Change methods

extension ManualViewTests {
    @Test(arguments: [true, false])
    func everyChangeMethodIsRecordedAndSeenByEveryConnection(persistent: Bool) throws {
        let songs = (0..<6).map { Self.row("s\($0)") }
        let (s0, s1, s2, s3, s4, s5) = (songs[0], songs[1], songs[2], songs[3], songs[4], songs[5])
        let x = Self.row("x", "other")
        let h = try Harness(persistent: persistent, groups: ["a", "b"], rows: songs + [x])

        try h.step(records: [.insertGroup("a"), .insertRow(s0, group: "a", index: 0)], model: [[s0], []]) {
            view, _ throws in
            #expect(try view.addKey("s0", inCollection: "songs", toGroup: "a"))
        }
        try h.step(records: [.insertRow(s1, group: "a", index: 1)], model: [[s0, s1], []]) { view, _ throws in
            #expect(try view.addKey("s1", inCollection: "songs", toGroup: "a"))
        }
        try h.step(records: [.insertRow(s2, group: "a", index: 0)], model: [[s2, s0, s1], []]) { view, _ throws in
            #expect(try view.insertKey("s2", inCollection: "songs", at: 0, inGroup: "a"))
        }
        try h.step(records: [.insertRow(s3, group: "a", index: 3)], model: [[s2, s0, s1, s3], []]) { view, _ throws in
            #expect(try view.insertKey("s3", inCollection: "songs", at: 3, inGroup: "a"))
        }
        try h.step(
            records: [.insertGroup("b"), .insertRow(x, group: "b", index: 0)], model: [[s2, s0, s1, s3], [x]]
        ) { view, _ throws in
            #expect(try view.insertKey("x", inCollection: "other", at: 0, inGroup: "b"))
        }
        // What YapDatabase refuses with NO changes nothing here either, and records nothing.
        try h.step(records: [], model: [[s2, s0, s1, s3], [x]]) { view, _ throws in
            #expect(try !view.addKey("s0", inCollection: "songs", toGroup: "a"), "already in the group")
            #expect(try !view.addKey("s0", inCollection: "songs", toGroup: "b"), "in another group: not moved")
            #expect(try !view.insertKey("s0", inCollection: "songs", at: 0, inGroup: "b"))
            #expect(try !view.addKey("missing", inCollection: "songs", toGroup: "a"), "no such row")
            #expect(try !view.addKey("s0", inCollection: nil, toGroup: "a"), "no such row in the default collection")
            #expect(try !view.insertKey("missing", inCollection: "songs", at: 0, inGroup: "a"))
            #expect(try !view.removeKey("s0", inCollection: "songs", fromGroup: "b"), "in another group")
            #expect(try !view.removeKey("s4", inCollection: "songs", fromGroup: "a"), "not in the view")
            #expect(try !view.removeKey("missing", inCollection: "songs", fromGroup: "a"), "no such row")
            #expect(try view.groupCounts() == ["a": 4, "b": 1])
        }
        try h.step(records: [.deleteRow(s0, group: "a", index: 1)], model: [[s2, s1, s3], [x]]) { view, _ throws in
            #expect(try view.removeItem(at: 1, inGroup: "a") == s0)
        }
        try h.step(records: [.deleteRow(s3, group: "a", index: 2)], model: [[s2, s1], [x]]) { view, _ throws in
            #expect(try view.removeKey("s3", inCollection: "songs", fromGroup: "a"))
        }
        try h.step(
            records: [
                .insertRow(s4, group: "a", index: 2), .insertRow(s5, group: "a", index: 3),
                .insertRow(s0, group: "a", index: 4),
            ],
            model: [[s2, s1, s4, s5, s0], [x]]
        ) { view, _ throws in
            for key in ["s4", "s5", "s0"] { #expect(try view.addKey(key, inCollection: "songs", toGroup: "a")) }
        }
        // A range goes from its end, each row with its own record.
        try h.step(
            records: [.deleteRow(s4, group: "a", index: 2), .deleteRow(s1, group: "a", index: 1)],
            model: [[s2, s5, s0], [x]]
        ) { view, _ throws in
            try view.removeItems(in: 1..<3, inGroup: "a")
        }
        try h.step(records: [], model: [[s2, s5, s0], [x]]) { view, _ throws in
            try view.removeItems(in: 1..<1, inGroup: "a")
            try view.removeItems(in: 0..<0, inGroup: "nothing")
            try view.removeAllItems(inGroup: "nothing")
        }
        // The whole group is cleared at once.
        try h.step(records: [.clearGroup("a"), .deleteGroup("a")], model: [[], [x]]) { view, _ throws in
            try view.removeItems(in: 0..<3, inGroup: "a")
        }
        try h.step(records: [.clearGroup("b"), .deleteGroup("b")], model: [[], []]) { view, _ throws in
            try view.removeAllItems(inGroup: "b")
        }
        // A move is a remove and an add; the write reads its own changes.
        try h.step(
            records: [
                .insertGroup("a"), .insertRow(s0, group: "a", index: 0), .insertRow(s1, group: "a", index: 1),
                .deleteRow(s0, group: "a", index: 0), .insertGroup("b"), .insertRow(s0, group: "b", index: 0),
            ],
            model: [[s1], [s0]]
        ) { view, _ throws in
            try view.addKey("s0", inCollection: "songs", toGroup: "a")
            try view.addKey("s1", inCollection: "songs", toGroup: "a")
            #expect(try view.removeKey("s0", inCollection: "songs", fromGroup: "a"))
            #expect(try view.addKey("s0", inCollection: "songs", toGroup: "b"))
            #expect(try view.group(forKey: "s0", inCollection: "songs") == "b")
            #expect(try view.groups() == ["a", "b"])
        }
        try h.step(records: [.deleteRow(s1, group: "a", index: 0), .deleteGroup("a")], model: [[], [s0]]) {
            view, _ throws in
            try view.removeItem(at: 0, inGroup: "a")
        }
        try h.reader.read { tx throws in
            let view = try Self.view(tx)
            #expect(try view.key(at: 0, inGroup: "b") == s0)
            #expect(try view.object(at: 0, inGroup: "b") != nil)
            #expect(try view.object(at: 1, inGroup: "b") == nil)
            #expect(try view.key(at: 1, inGroup: "b") == nil)
            #expect(try view.group(forKey: "s1", inCollection: "songs") == nil)
            #expect(try view.groups() == ["b"])
            #expect(view.registeredName == Self.name)
            #expect(view.versionTag == "")
        }
    }

    @Test(arguments: [true, false])
    func databaseWritesToARowInTheViewAreUpdatesInPlace(persistent: Bool) throws {
        let (s0, s1, s2) = (Self.row("s0"), Self.row("s1"), Self.row("s2"))
        let h = try Harness(persistent: persistent, groups: ["a"], rows: [s0, s1, s2, Self.row("s3")])
        let model = [[s0, s1, s2]]
        try h.step(model: model) { view, _ throws in
            for key in ["s0", "s1", "s2"] { try view.addKey(key, inCollection: "songs", toGroup: "a") }
        }
        let (_, changes) = try h.step(
            records: [.updateRow(s1, group: "a", index: 1, parts: [.object, .metadata])], model: model
        ) { _, tx throws in
            try tx.setObject("new", forKey: "s1", inCollection: "songs")
        }
        #expect(changes.rowChanges.map(\.kind) == [.update])
        #expect(changes.rowChanges.first?.changedParts == [.object, .metadata])
        try h.step(
            records: [
                .updateRow(s0, group: "a", index: 0, parts: .object),
                .updateRow(s2, group: "a", index: 2, parts: .metadata),
            ],
            model: model
        ) { _, tx throws in
            try tx.replaceObject("new", forKey: "s0", inCollection: "songs")
            try tx.replaceMetadata("note", forKey: "s2", inCollection: "songs")
        }
        try h.step(
            records: [
                .updateRow(s1, group: "a", index: 1, parts: .object),
                .updateRow(s1, group: "a", index: 1, parts: .metadata),
                .updateRow(s1, group: "a", index: 1, parts: [.object, .metadata]),
            ],
            model: model
        ) { _, tx throws in
            try tx.touchObject(forKey: "s1", inCollection: "songs")
            try tx.touchMetadata(forKey: "s1", inCollection: "songs")
            try tx.touchRow(forKey: "s1", inCollection: "songs")
        }
        // Rows outside the view, new or changed, leave it alone.
        try h.step(records: [], model: model) { _, tx throws in
            try tx.setObject("new", forKey: "s3", inCollection: "songs")
            try tx.replaceObject("newer", forKey: "s3", inCollection: "songs")
            try tx.touchRow(forKey: "s3", inCollection: "songs")
            try tx.setObject("new", forKey: "s9", inCollection: "songs")
        }
    }

    @Test(arguments: [true, false])
    func rowsRemovedFromTheDatabaseLeaveTheView(persistent: Bool) throws {
        let songs = (0..<6).map { Self.row("s\($0)") }
        let others = (0..<3).map { Self.row("x\($0)", "other") }
        let h = try Harness(persistent: persistent, groups: ["a", "b"], rows: songs + others)
        let (s0, s1, s2, s3, s4) = (songs[0], songs[1], songs[2], songs[3], songs[4])
        let (x0, x1) = (others[0], others[1])
        try h.step(model: [[s0, x0, s1, s2], [x1, s3, s4]]) { view, _ throws in
            for row in [s0, x0, s1, s2] { try view.addKey(row.key, inCollection: row.collection, toGroup: "a") }
            for row in [x1, s3, s4] { try view.addKey(row.key, inCollection: row.collection, toGroup: "b") }
        }
        try h.step(records: [.deleteRow(s1, group: "a", index: 2)], model: [[s0, x0, s2], [x1, s3, s4]]) {
            _, tx throws in
            try tx.removeObject(forKey: "s1", inCollection: "songs")
            try tx.removeObject(forKey: "s5", inCollection: "songs")
        }
        var (records, _) = try h.step(model: [[x0, s2], [x1, s4]]) { _, tx throws in
            try tx.removeObjects(forKeys: ["s0", "s3", "s5"], inCollection: "songs")
        }
        #expect(Set(records) == [.deleteRow(s0, group: "a", index: 0), .deleteRow(s3, group: "b", index: 1)])
        try h.step(model: [[x0, s2], [x1, s4, Self.row("last")]]) { view, tx throws in
            try tx.setObject("last", forKey: "last", inCollection: "songs")
            try view.addKey("last", inCollection: "songs", toGroup: "b")
        }
        // SQLite gives a new row the rowid of the last row just removed: it is not in the view.
        try h.step(records: [.deleteRow(Self.row("last"), group: "b", index: 2)], model: [[x0, s2], [x1, s4]]) {
            view, tx throws in
            let rowid = try tx.rowid(for: Self.row("last"))
            try tx.removeObject(forKey: "last", inCollection: "songs")
            try tx.setObject("new", forKey: "new", inCollection: "songs")
            #expect(try tx.rowid(for: Self.row("new")) == rowid)
            #expect(try view.group(forKey: "new", inCollection: "songs") == nil)
        }
        // Every row of a collection, each with its own record.
        (records, _) = try h.step(model: [[s2], [s4]]) { _, tx throws in
            try tx.removeAllObjects(inCollection: "other")
        }
        #expect(Set(records) == [.deleteRow(x0, group: "a", index: 0), .deleteRow(x1, group: "b", index: 0)])
        try h.step(
            records: [.clearGroup("a"), .deleteGroup("a"), .clearGroup("b"), .deleteGroup("b")], model: [[], []]
        ) {
            _, tx throws in
            try tx.removeAllObjectsInAllCollections()
        }
        // The emptied view takes new rows, whatever their rowids.
        try h.step(model: [[s0, s1], []]) { view, tx throws in
            try Self.write([s0, s1], tx)
            #expect(try view.groupCounts() == [:])
            try view.addKey("s0", inCollection: "songs", toGroup: "a")
            try view.addKey("s1", inCollection: "songs", toGroup: "a")
        }
    }
}

// MARK: Misuse and rollback

extension ManualViewTests {
    @Test(arguments: [true, false])
    func misuseThrowsAndChangesNothing(persistent: Bool) throws {
        let (s0, s1, s2) = (Self.row("s0"), Self.row("s1"), Self.row("s2"))
        let h = try Harness(persistent: persistent, groups: ["a"], rows: [s0, s1, s2])
        try h.step(model: [[s0, s1]]) { view, _ throws in
            try view.addKey("s0", inCollection: "songs", toGroup: "a")
            try view.addKey("s1", inCollection: "songs", toGroup: "a")
        }
        let readOnly: [(String, (ManualViewTransaction) throws -> Void)] = [
            ("add", { try $0.addKey("s2", inCollection: "songs", toGroup: "a") }),
            ("insert", { try $0.insertKey("s2", inCollection: "songs", at: 0, inGroup: "a") }),
            ("remove at", { try $0.removeItem(at: 0, inGroup: "a") }),
            ("remove range", { try $0.removeItems(in: 0..<1, inGroup: "a") }),
            ("remove key", { try $0.removeKey("s0", inCollection: "songs", fromGroup: "a") }),
            ("remove all", { try $0.removeAllItems(inGroup: "a") }),
        ]
        try h.writer.read { tx throws in
            let view = try Self.view(tx)
            for (what, change) in readOnly {
                let error = #expect(throws: DatabaseError.self, "\(what)") { try change(view) }
                #expect(error?.code == .misuse)
                #expect(error?.message.contains("\"\(Self.name)\"") == true, "\(String(describing: error))")
            }
        }
        let ended = try h.writer.readWrite { tx in try Self.view(tx) }
        #expect(throws: DatabaseError.self) { try ended.addKey("s2", inCollection: "songs", toGroup: "a") }

        try h.step(records: [], model: [[s0, s1]]) { view, _ throws in
            let outOfRange: [(String, (ManualViewTransaction) throws -> Void)] = [
                ("insert past the end", { try $0.insertKey("s2", inCollection: "songs", at: 3, inGroup: "a") }),
                ("insert before 0", { try $0.insertKey("s2", inCollection: "songs", at: -1, inGroup: "a") }),
                ("remove at the count", { try $0.removeItem(at: 2, inGroup: "a") }),
                ("remove before 0", { try $0.removeItem(at: -1, inGroup: "a") }),
                ("range past the end", { try $0.removeItems(in: 1..<3, inGroup: "a") }),
                ("range before 0", { try $0.removeItems(in: -1..<1, inGroup: "a") }),
            ]
            for (what, change) in outOfRange {
                let error = #expect(throws: DatabaseError.self, "\(what)") { try change(view) }
                #expect(error?.code == .misuse)
                let message = error?.message ?? ""
                #expect(message.contains("group \"a\"") && message.contains("\"\(Self.name)\""), "\(message)")
            }
            // Even an index check on an empty group, and before the row is looked up.
            let error = #expect(throws: DatabaseError.self) {
                try view.insertKey("missing", inCollection: "songs", at: 1, inGroup: "empty")
            }
            #expect(error?.collection == "songs" && error?.key == "missing")
            #expect(error?.message.contains("group \"empty\"") == true)
            #expect(throws: DatabaseError.self) { try view.removeItem(at: 0, inGroup: "empty") }
            #expect(try view.groupCounts() == ["a": 2])
        }
    }

    @Test(arguments: [true, false])
    func aRolledBackWriteLeavesTheViewAsItWas(persistent: Bool) throws {
        let rows = (0..<200).map { Self.row("s\($0)") }
        let h = try Harness(persistent: persistent, groups: ["a", "b"], rows: rows)
        let model = [Array(rows[0..<60]), Array(rows[60..<90])]
        try h.step(model: model) { view, _ throws in
            for row in rows[0..<60] { try view.addKey(row.key, inCollection: "songs", toGroup: "a") }
            for row in rows[60..<90] { try view.addKey(row.key, inCollection: "songs", toGroup: "b") }
        }
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try h.writer.readWrite { tx in
                let view = try Self.view(tx)
                for row in rows[90..<200] { try view.insertKey(row.key, inCollection: "songs", at: 30, inGroup: "a") }
                try view.removeItems(in: 0..<20, inGroup: "a")
                try view.removeAllItems(inGroup: "b")
                try tx.removeObject(forKey: "s40", inCollection: "songs")
                #expect(try view.numberOfItems(inGroup: "a") == 149)
                throw Abort()
            }
        }
        try h.writer.readWrite { tx in
            try Self.view(tx).removeAllItems(inGroup: "a")
            try tx.removeAllObjectsInAllCollections()
            tx.rollback()
        }
        // The next write starts from the committed pages.
        try h.step(records: [], model: model) { _, _ throws in }
        try h.step(
            records: [.insertRow(rows[199], group: "a", index: 0)], model: [[rows[199]] + model[0], model[1]]
        ) { view, _ throws in
            try view.insertKey("s199", inCollection: "songs", at: 0, inGroup: "a")
        }
    }
}

// MARK: Pages and storage

extension ManualViewTests {
    @Test(arguments: [true, false])
    func aGroupSpanningPagesKeepsTheAppsOrder(persistent: Bool) throws {
        let rows = (0..<300).map { Self.row("s\($0)") }
        let h = try Harness(persistent: persistent, groups: ["a"], rows: rows)
        var model: [CollectionKey] = []
        for batch in stride(from: 0, to: 300, by: 100) {
            try h.step(model: [model]) { view, _ throws in
                for row in rows[batch..<batch + 100] {
                    let index = (model.count * 7) % (model.count + 1)
                    #expect(try view.insertKey(row.key, inCollection: "songs", at: index, inGroup: "a"))
                    model.insert(row, at: index)
                }
            }
        }
        try h.step(model: [model]) { view, _ throws in
            try view.removeItems(in: 40..<160, inGroup: "a")
            model.removeSubrange(40..<160)
        }
        try h.step(model: [model]) { view, _ throws in
            for index in stride(from: model.count - 1, through: 0, by: -9) {
                let expected = model.remove(at: index)
                #expect(try view.removeItem(at: index, inGroup: "a") == expected)
            }
        }
        #expect(try Self.lists(h.test.connection(), ["a"]) == [model])
    }

    @Test(arguments: [true, false])
    func unregisteringDropsTheTables(persistent: Bool) throws {
        let h = try Harness(persistent: persistent, groups: ["a"], rows: [Self.row("s0")])
        try h.step(model: [[Self.row("s0")]]) { view, _ throws in
            try view.addKey("s0", inCollection: "songs", toGroup: "a")
        }
        try h.writer.read { tx throws in
            #expect(try tx.snapshotHasTable(AutoView.pageTableName(registeredName: Self.name)) == persistent)
            #expect(try tx.snapshotHasTable(AutoView.mapTableName(registeredName: Self.name)) == persistent)
        }
        try h.test.database.unregister(extensionNamed: Self.name)
        try h.writer.read { tx throws in
            #expect(try !tx.snapshotHasTable(AutoView.pageTableName(registeredName: Self.name)))
            #expect(try !tx.snapshotHasTable(AutoView.mapTableName(registeredName: Self.name)))
            #expect(tx.ext(Self.name) == nil)
        }
    }

    @Test func aPersistentViewKeepsItsRowsUntilItsTagChanges() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("db.sqlite")
        let options = TestKeyKind.raw.makeOptions()
        let (s0, s1) = (Self.row("s0"), Self.row("s1"))
        do {
            let database = try TestSupport.open(url, options: options)
            try database.register(ManualView(versionTag: "1"), withName: Self.name)
            try database.newConnection().readWrite { tx in
                try Self.write([s0, s1], tx)
                try Self.view(tx).addKey("s1", inCollection: "songs", toGroup: "a")
                try Self.view(tx).addKey("s0", inCollection: "songs", toGroup: "a")
            }
        }
        do {
            let database = try TestSupport.open(url, options: options)
            try database.register(ManualView(versionTag: "1"), withName: Self.name)
            #expect(try Self.lists(database.newConnection(), ["a"]) == [[s1, s0]])
        }
        let database = try TestSupport.open(url, options: options)
        try database.register(ManualView(versionTag: "2"), withName: Self.name)
        let connection = try database.newConnection()
        #expect(try Self.lists(connection, ["a"]) == [[]])
        try connection.read { tx throws in #expect(try Self.view(tx).versionTag == "2") }
    }

    @Test func aNonPersistentViewIsEmptyAtEachRegistrationAndLeavesTheFileAlone() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("db.sqlite")
        let options = TestKeyKind.raw.makeOptions()
        let s0 = Self.row("s0")
        do {
            let database = try TestSupport.open(url, options: options)
            let writer = try database.newConnection()
            try writer.readWrite { tx in try Self.write([s0], tx) }
            try database.register(ManualView(isPersistent: false), withName: Self.name)
            #expect(try Self.lists(writer, ["a"]) == [[]])
            _ = try writer.readWrite { tx in try Self.view(tx).addKey("s0", inCollection: "songs", toGroup: "a") }
            #expect(try Self.lists(database.newConnection(), ["a"]) == [[s0]])
            try writer.read { tx throws in
                #expect(try !tx.snapshotHasTable(AutoView.pageTableName(registeredName: Self.name)))
                #expect(try !tx.snapshotHasTable(AutoView.mapTableName(registeredName: Self.name)))
                #expect(try tx.yapString(extension: Self.name, key: ExtensionRecord.classKey) == nil)
            }
            // Registering again in the same process starts from new memory tables.
            try database.unregister(extensionNamed: Self.name)
            try database.register(ManualView(isPersistent: false), withName: Self.name)
            #expect(try Self.lists(writer, ["a"]) == [[]])
            _ = try writer.readWrite { tx in try Self.view(tx).addKey("s0", inCollection: "songs", toGroup: "a") }
        }
        let reopened = try TestSupport.open(url, options: options)
        #expect(reopened.previouslyRegisteredExtensionNames == [])
        try reopened.register(ManualView(isPersistent: false), withName: Self.name)
        #expect(try Self.lists(reopened.newConnection(), ["a"]) == [[]])
    }
}

// MARK: Model

extension ManualViewTests {
    /// Random changes to the view and removes from the database, against a plain model of each
    /// group's rows; every commit is checked on three connections and through a reader's changes.
    @Test(arguments: [true, false], [UInt64(31), 32])
    func randomChangesMatchAModel(persistent: Bool, seed: UInt64) throws {
        var random = ViewPageTreeTests.SplitMix(seed: seed)
        func pick(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        let universe = ["c", "d"].flatMap { collection in (0..<150).map { Self.row("k\($0)", collection) } }
        let groups = ["g0", "g1"]
        let h = try Harness(persistent: persistent, groups: groups, rows: Array(universe.prefix(250)))
        var model: [String: [CollectionKey]] = [:]
        var existing = Set(universe.prefix(250))
        func groupOf(_ row: CollectionKey) -> String? { model.first { $0.value.contains(row) }?.key }
        func leave(_ row: CollectionKey) {
            if let group = groupOf(row) { model[group]?.removeAll { $0 == row } }
        }
        func modelLists() -> [[CollectionKey]] { groups.map { model[$0] ?? [] } }

        // Adds outweigh removes, so groups grow over several pages (of 50 rows) before the
        // database is emptied at round 45 and they grow again.
        for round in 0..<60 {
            let ops = round == 45 ? [-1] : (0..<pick(60)).map { _ in pick(20) }
            try h.step(model: modelLists()) { view, tx throws in
                for op in ops {
                    let row = universe[pick(universe.count)]
                    let group = groups[pick(groups.count)]
                    let count = model[group]?.count ?? 0
                    let canAdd = existing.contains(row) && groupOf(row) == nil
                    switch op {
                    case -1:
                        try tx.removeAllObjectsInAllCollections()
                        model = [:]
                        try Self.write(Array(universe.suffix(150)), tx)
                        existing = Set(universe.suffix(150))
                    case 0...2:
                        try tx.setObject(row.key, forKey: row.key, inCollection: row.collection)
                        existing.insert(row)
                    case 3:
                        try tx.removeObject(forKey: row.key, inCollection: row.collection)
                        existing.remove(row)
                        leave(row)
                    case 4...9:
                        #expect(try view.addKey(row.key, inCollection: row.collection, toGroup: group) == canAdd)
                        if canAdd { model[group, default: []].append(row) }
                    case 10...12:
                        let index = pick(count + 1)
                        let added = try view.insertKey(row.key, inCollection: row.collection, at: index, inGroup: group)
                        #expect(added == canAdd)
                        if canAdd { model[group, default: []].insert(row, at: index) }
                    case 13 where count > 0:
                        let index = pick(count)
                        #expect(try view.removeItem(at: index, inGroup: group) == model[group]?[index])
                        model[group]?.remove(at: index)
                    case 14 where count > 0:
                        let lower = pick(count)
                        let upper = lower + pick(min(count - lower, 3) + 1)
                        try view.removeItems(in: lower..<upper, inGroup: group)
                        model[group]?.removeSubrange(lower..<upper)
                    case 15:
                        let inGroup = groupOf(row) == group
                        #expect(try view.removeKey(row.key, inCollection: row.collection, fromGroup: group) == inGroup)
                        if inGroup { leave(row) }
                    case 16 where existing.contains(row):
                        try tx.touchRow(forKey: row.key, inCollection: row.collection)
                        try tx.replaceMetadata(pick(5), forKey: row.key, inCollection: row.collection)
                    case 17 where pick(80) == 0:
                        try view.removeAllItems(inGroup: group)
                        model[group] = []
                    case 18 where pick(80) == 0:
                        // Written again at once, the rows may take one another's rowids.
                        try tx.removeAllObjects(inCollection: row.collection)
                        for gone in existing where gone.collection == row.collection { leave(gone) }
                        let again = existing.filter { $0.collection == row.collection }.sorted { $0.key > $1.key }
                        try Self.write(again, tx)
                    case 19 where pick(3) == 0:
                        let keys = (0..<3).map { _ in universe[pick(universe.count)] }
                            .filter { $0.collection == row.collection }.map(\.key)
                        try tx.removeObjects(forKeys: keys, inCollection: row.collection)
                        for key in keys {
                            let gone = Self.row(key, row.collection)
                            existing.remove(gone)
                            leave(gone)
                        }
                    default:
                        break
                    }
                }
                #expect(try view.groupCounts() == model.filter { !$0.value.isEmpty }.mapValues(\.count))
            }
        }
    }
}
