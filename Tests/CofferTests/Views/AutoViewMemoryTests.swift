import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Where a view's pages live: a non-persistent view leaves the file alone and is built at each
/// registration, and both kinds keep every connection's snapshot apart in the same way.
extension AutoViewTests {
    @Test func aNonPersistentViewPutsNothingInTheFile() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("db.sqlite")
        let options = TestKeyKind.raw.makeOptions()
        do {
            let database = try TestSupport.open(url, options: options)
            try database.register(Self.numbers(persistent: false), withName: "numbers")
            let writer = try database.newConnection()
            try writer.readWrite { tx in
                for value in 1...120 { try tx.setObject(value, forKey: "k\(value)", inCollection: "n") }
            }
            #expect(try keys(writer, "odd").count == 60)
            try writer.read { tx throws in
                #expect(try !tx.snapshotHasTable(AutoView.pageTableName(registeredName: "numbers")))
                #expect(try !tx.snapshotHasTable(AutoView.mapTableName(registeredName: "numbers")))
                #expect(try tx.yapString(extension: "numbers", key: ExtensionRecord.classKey) == nil)
                #expect(try tx.yapString(extension: "numbers", key: ExtensionRecord.tablesKey) == nil)
            }
        }
        let reopened = try TestSupport.open(url, options: options)
        #expect(reopened.previouslyRegisteredExtensionNames == [])
    }

    @Test func aNonPersistentViewIsPopulatedAtEachRegistration() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("db.sqlite")
        let options = TestKeyKind.raw.makeOptions()
        do {
            let database = try TestSupport.open(url, options: options)
            let writer = try database.newConnection()
            try writer.readWrite { tx in
                for value in [3, 1, 2] { try tx.setObject(value, forKey: "k\(value)", inCollection: "n") }
            }
            try database.register(Self.numbers(persistent: false), withName: "numbers")
            #expect(try keys(writer, "odd") == ["k1", "k3"])
            // Registering again in the same process starts from new memory tables.
            try database.unregister(extensionNamed: "numbers")
            try writer.readWrite { tx in try tx.setObject(4, forKey: "k4", inCollection: "n") }
            try database.register(Self.numbers(persistent: false), withName: "numbers")
            #expect(try keys(writer, "even") == ["k2", "k4"])
            try writer.readWrite { tx in try tx.setObject(5, forKey: "k5", inCollection: "n") }
        }
        let reopened = try TestSupport.open(url, options: options)
        let writer = try reopened.newConnection()
        try writer.readWrite { tx in try tx.setObject(0, forKey: "k0", inCollection: "n") }
        try reopened.register(Self.numbers(persistent: false), withName: "numbers")
        #expect(try keys(writer, "even") == ["k0", "k2", "k4"])
        #expect(try keys(writer, "odd") == ["k1", "k3", "k5"])
    }

    @Test(arguments: [true, false])
    func connectionsAndALongLivedReadKeepTheirSnapshots(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.numbers(persistent: persistent), withName: "numbers")
        let writer = try test.connection()
        let warm = try test.connection()
        let cold = try test.connection()
        let sibling = try test.connection()
        try writer.readWrite { tx in
            for value in [2, 4, 6] { try tx.setObject(value, forKey: "k\(value)", inCollection: "n") }
        }
        // One reader has read its pages before the writes, the other reads them only after.
        _ = try warm.beginLongLivedReadTransaction()
        #expect(try keys(warm, "even") == ["k2", "k4", "k6"])
        _ = try cold.beginLongLivedReadTransaction()
        #expect(try keys(sibling, "even") == ["k2", "k4", "k6"])

        try writer.readWrite { tx in
            for value in stride(from: 8, through: 300, by: 2) {
                try tx.setObject(value, forKey: "k\(value)", inCollection: "n")
            }
        }
        try writer.readWrite { tx in
            try tx.removeObject(forKey: "k4", inCollection: "n")
            try tx.replaceObject(7, forKey: "k6", inCollection: "n")
        }
        try writer.readWrite { tx in try tx.removeObjects(forKeys: ["k8", "k10"], inCollection: "n") }

        let current = ["k2"] + stride(from: 12, through: 300, by: 2).map { "k\($0)" }
        for reader in [warm, cold] {
            #expect(try keys(reader, "even") == ["k2", "k4", "k6"])
            #expect(try keys(reader, "odd") == [])
            try reader.read { tx throws in
                #expect(try view(tx).groups() == ["even"])
                #expect(try view(tx).index(forKey: "k6", inCollection: "n")?.index == 2)
                #expect(try view(tx).group(forKey: "k100", inCollection: "n") == nil)
            }
        }
        for connection in [writer, sibling] {
            #expect(try keys(connection, "even") == current)
            #expect(try keys(connection, "odd") == ["k6"])
        }

        for reader in [warm, cold] {
            _ = try reader.beginLongLivedReadTransaction()
            #expect(try keys(reader, "even") == current)
            #expect(try keys(reader, "odd") == ["k6"])
            _ = try reader.endLongLivedReadTransaction()
        }
    }

    @Test(arguments: [true, false])
    func aRolledBackWriteLeavesTheViewAsItWas(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.numbers(persistent: persistent), withName: "numbers")
        let writer = try test.connection()
        let sibling = try test.connection()
        try writer.readWrite { tx in
            for value in 1...60 { try tx.setObject(value, forKey: "k\(value)", inCollection: "n") }
        }
        let before = try keys(writer, "even")
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try writer.readWrite { tx in
                for value in 61...200 { try tx.setObject(value, forKey: "k\(value)", inCollection: "n") }
                try tx.removeObject(forKey: "k2", inCollection: "n")
                #expect(try view(tx).numberOfItems(inGroup: "even") == 99)
                throw Abort()
            }
        }
        try writer.readWrite { tx in
            try tx.removeAllObjectsInAllCollections()
            tx.rollback()
        }
        for connection in [writer, sibling] { #expect(try keys(connection, "even") == before) }
        // The next write starts from the committed pages.
        try writer.readWrite { tx in try tx.setObject(0, forKey: "k0", inCollection: "n") }
        for connection in [writer, sibling] { #expect(try keys(connection, "even") == ["k0"] + before) }
    }
}

extension AutoViewTests {
    /// Regression: a view registered in memory under the name of one that was persistent left
    /// its tables and record in the file, and registering it persistent again reused those
    /// tables, which had missed every write in between.
    @Test func switchingBetweenPersistentAndNotRebuildsTheView() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("db.sqlite")
        let options = TestKeyKind.raw.makeOptions()
        do {
            let database = try TestSupport.open(url, options: options)
            try database.register(Self.numbers(), withName: "numbers")
            try database.newConnection().readWrite { tx in try tx.setObject(1, forKey: "k1", inCollection: "n") }
        }
        do {
            let database = try TestSupport.open(url, options: options)
            try database.register(Self.numbers(persistent: false), withName: "numbers")
            let writer = try database.newConnection()
            try writer.readWrite { tx in try tx.setObject(3, forKey: "k3", inCollection: "n") }
            #expect(try keys(writer, "odd") == ["k1", "k3"])
            try writer.read { tx throws in
                #expect(try !tx.snapshotHasTable(AutoView.pageTableName(registeredName: "numbers")))
                #expect(try !tx.snapshotHasTable(AutoView.mapTableName(registeredName: "numbers")))
                #expect(try tx.yapString(extension: "numbers", key: ExtensionRecord.classKey) == nil)
            }
        }
        let database = try TestSupport.open(url, options: options)
        try database.register(Self.numbers(), withName: "numbers")
        #expect(try keys(database.newConnection(), "odd") == ["k1", "k3"])
    }
}
