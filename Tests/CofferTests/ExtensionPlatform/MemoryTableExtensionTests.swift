import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// A non-persistent extension keeps what it derives in a memory table and behaves like a
/// persistent one across connections and long-lived reads, without touching the file.
@Suite struct MemoryTableExtensionTests {
    /// Mirrors the integer objects of collection "c" in memory, key → value.
    struct Mirror: DatabaseExtension {
        let kind = "Mirror"
        var isPersistent: Bool { false }

        func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
            State(table: try? registration.memoryTable(named: "values", keyType: String.self, valueType: Int.self))
        }

        final class State: ExtensionConnectionState {
            let table: MemoryTable<String, Int>?
            init(table: MemoryTable<String, Int>?) { self.table = table }
            func makeTransaction(_ context: ExtensionContext) -> any ExtensionTransaction {
                MirrorTransaction(context: context, table: table)
            }
        }
    }

    /// The mirror inside one transaction, and its query interface.
    final class MirrorTransaction: ExtensionTransaction {
        let context: ExtensionContext
        let table: MemoryTable<String, Int>?
        var failNextInsert = false

        init(context: ExtensionContext, table: MemoryTable<String, Int>?) {
            self.context = context
            self.table = table
        }

        private func memory() throws -> MemoryTable<String, Int> {
            guard let table else { throw DatabaseError(.extensionFailure, "no memory table") }
            return table
        }

        func value(forKey key: String) throws -> Int? {
            context.isReadWrite
                ? try context.writeView(of: memory()).value(forKey: key)
                : try context.readView(of: memory()).value(forKey: key)
        }

        func count() throws -> Int {
            context.isReadWrite ? try context.writeView(of: memory()).count : try context.readView(of: memory()).count
        }

        var retainedVersions: Int { table?.retainedVersionCount ?? -1 }

        func populate() throws {
            let view = try context.writeView(of: memory())
            try view.removeAll()
            try context.enumerateRows(in: .only(["c"]), readingObject: true, readingMetadata: false) { row in
                if let value = try row.object.value(as: Int.self) { try view.setValue(value, forKey: row.key) }
            }
        }

        func didInsert(_ row: ExtensionRow) throws { try store(row) }
        func didUpdate(_ row: ExtensionRow) throws { try store(row) }
        func didReplaceObject(_ row: ExtensionRow) throws { try store(row) }

        func didRemove(_ row: CollectionKey, rowid: Int64) throws {
            guard row.collection == "c" else { return }
            try context.writeView(of: memory()).removeValue(forKey: row.key)
        }

        func didRemoveAll(inCollection collection: String) throws {
            guard collection == "c" else { return }
            try context.writeView(of: memory()).removeAll()
        }

        func didRemoveAllCollections() throws {
            try context.writeView(of: memory()).removeAll()
        }

        private func store(_ row: ExtensionRow) throws {
            guard row.collection == "c", let value = try row.object.value(as: Int.self) else { return }
            try context.writeView(of: memory()).setValue(value, forKey: row.key)
        }
    }

    private func mirror(_ tx: ReadTransaction) throws -> MirrorTransaction {
        try tx.extension("mirror", as: MirrorTransaction.self)
    }

    @Test func registrationPopulatesFromRowsAndNothingReachesTheFile() throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        try writer.readWrite { tx in
            try tx.setObject(1, forKey: "a", inCollection: "c")
            try tx.setObject(9, forKey: "z", inCollection: "other")
        }
        try test.database.register(Mirror(), withName: "mirror")
        try writer.read { tx throws in
            #expect(try mirror(tx).value(forKey: "a") == 1)
            #expect(try mirror(tx).value(forKey: "z") == nil)
            #expect(try mirror(tx).count() == 1)
            #expect(try !tx.snapshotHasTable("mirror"))
            #expect(try tx.yapString(extension: "mirror", key: ExtensionRecord.classKey) == nil)
        }
    }

    @Test func aLongLivedReadKeepsItsSnapshotAndReleasesItWhenItMoves() throws {
        let test = try TestDatabase()
        try test.database.register(Mirror(), withName: "mirror")
        let writer = try test.connection()
        let reader = try test.connection()
        try writer.readWrite { tx in try tx.setObject(1, forKey: "a", inCollection: "c") }
        _ = try reader.beginLongLivedReadTransaction()
        for value in 2...6 {
            try writer.readWrite { tx in
                try tx.setObject(value, forKey: "a", inCollection: "c")
                try tx.setObject(value * 10, forKey: "b\(value)", inCollection: "c")
            }
        }
        try writer.readWrite { tx in try tx.removeObject(forKey: "b2", inCollection: "c") }

        // The pinned reader sees its snapshot; a sibling sees the newest commit.
        try reader.read { tx throws in
            #expect(try mirror(tx).value(forKey: "a") == 1)
            #expect(try mirror(tx).count() == 1)
        }
        let sibling = try test.connection()
        try sibling.read { tx throws in
            #expect(try mirror(tx).value(forKey: "a") == 6)
            #expect(try mirror(tx).value(forKey: "b2") == nil)
            #expect(try mirror(tx).count() == 5)
            // Every version since the reader's snapshot is kept for it.
            #expect(try mirror(tx).retainedVersions > 6)
        }

        _ = try reader.beginLongLivedReadTransaction()
        try reader.read { tx throws in #expect(try mirror(tx).value(forKey: "a") == 6) }
        _ = try reader.endLongLivedReadTransaction()
        // The next use prunes: one version per live key.
        try sibling.read { tx throws in
            #expect(try mirror(tx).count() == 5)
            #expect(try mirror(tx).retainedVersions == 5)
        }
    }

    @Test func aRolledBackWriteLeavesTheMemoryAsItWas() throws {
        let test = try TestDatabase()
        try test.database.register(Mirror(), withName: "mirror")
        let writer = try test.connection()
        try writer.readWrite { tx in try tx.setObject(1, forKey: "a", inCollection: "c") }
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try writer.readWrite { tx in
                try tx.setObject(2, forKey: "a", inCollection: "c")
                try tx.setObject(3, forKey: "b", inCollection: "c")
                #expect(try mirror(tx).value(forKey: "a") == 2)
                throw Abort()
            }
        }
        try writer.readWrite { tx in
            let mirror = try mirror(tx)
            #expect(try mirror.value(forKey: "a") == 1)
            #expect(try mirror.value(forKey: "b") == nil)
            try tx.setObject(4, forKey: "b", inCollection: "c")
            #expect(try mirror.value(forKey: "b") == 4)
            tx.rollback()
        }
        try writer.read { tx throws in
            #expect(try mirror(tx).value(forKey: "a") == 1)
            #expect(try mirror(tx).value(forKey: "b") == nil)
        }
    }

    @Test func removalsFollowTheRows() throws {
        let test = try TestDatabase()
        try test.database.register(Mirror(), withName: "mirror")
        let writer = try test.connection()
        try writer.readWrite { tx in
            for index in 0..<10 { try tx.setObject(index, forKey: "k\(index)", inCollection: "c") }
        }
        try writer.readWrite { tx in try tx.removeObject(forKey: "k0", inCollection: "c") }
        try writer.read { tx throws in #expect(try mirror(tx).count() == 9) }
        try writer.readWrite { tx in try tx.removeAllObjects(inCollection: "c") }
        try writer.read { tx throws in #expect(try mirror(tx).count() == 0) }
        try writer.readWrite { tx in try tx.setObject(1, forKey: "x", inCollection: "c") }
        try writer.readWrite { tx in try tx.removeAllObjectsInAllCollections() }
        try writer.read { tx throws in #expect(try mirror(tx).count() == 0) }
    }

    @Test func registeringAgainStartsFromNewTables() throws {
        let test = try TestDatabase()
        try test.database.register(Mirror(), withName: "mirror")
        let writer = try test.connection()
        try writer.readWrite { tx in try tx.setObject(1, forKey: "a", inCollection: "c") }
        try test.database.unregister(extensionNamed: "mirror")
        try writer.readWrite { tx in try tx.setObject(2, forKey: "b", inCollection: "c") }
        try test.database.register(Mirror(), withName: "mirror")
        try writer.read { tx throws in
            #expect(try mirror(tx).value(forKey: "a") == 1)
            #expect(try mirror(tx).value(forKey: "b") == 2)
            #expect(try mirror(tx).retainedVersions == 2)
        }
    }
}

/// An extension registered in a transaction takes part in that transaction's flush and commit.
@Suite struct RegistrationFlushTests {
    final class Log: @unchecked Sendable {
        // Safety: written inside one registration's write transaction, read after it.
        var events: [String] = []
    }

    struct Buffering: DatabaseExtension {
        let kind = "Buffering"
        let log: Log

        func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
            StatelessConnectionState { [log] context in Transaction(context: context, log: log) }
        }

        final class Transaction: ExtensionTransaction {
            let context: ExtensionContext
            let log: Log
            var buffered: [String] = []
            init(context: ExtensionContext, log: Log) {
                self.context = context
                self.log = log
            }
            func createTables() throws {
                try context.tables.execute("CREATE TABLE IF NOT EXISTS \(table) (key TEXT)")
            }
            var table: String { ExtensionTables.quote(context.registration.tableNames[0]) }
            func populate() throws {
                try context.enumerateRows(readingObject: false, readingMetadata: false) { buffered.append($0.key) }
            }
            var hasPendingChanges: Bool { !buffered.isEmpty }
            func flushPendingChanges() throws {
                for key in buffered { try context.tables.run("INSERT INTO \(table) VALUES (?)", [.text(key)]) }
                log.events.append("flushed \(buffered.count)")
                buffered = []
            }
            func changesForCommit() -> Int? { 1 }
            func didCommit() { log.events.append("committed") }
        }
    }

    @Test func whatPopulationBuffersIsFlushedAndCommitted() throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        try writer.readWrite { tx in
            for index in 0..<3 { try tx.setObject(index, forKey: "k\(index)", inCollection: "c") }
        }
        let log = Log()
        try test.database.register(Buffering(log: log), withName: "buffering")
        #expect(log.events == ["flushed 3", "committed"])
        let stored = try writer.read { tx in
            try tx.extension("buffering", as: Buffering.Transaction.self).context.tables.scalar(
                "SELECT COUNT(*) FROM \"Buffering_buffering\"")
        }
        #expect(stored == .integer(3))
    }
}
