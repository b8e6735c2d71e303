import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// The key-list enumerations (`enumerateObjects/Metadata/Rows(forKeys:)`) against writes made
/// from their own body: they must detect mutation like every other enumeration, and must never
/// leave a removed row in the writer's cache.
@Suite struct KeyListEnumerationTests {
    private typealias Enumeration = (ReadWriteTransaction, [String], (ReadWriteTransaction) throws -> Void) throws ->
        Void

    /// The three key-list kinds, each running `mutate` from its body on every call.
    private static var kinds: [(String, Enumeration)] {
        [
            (
                "objects",
                { tx, keys, mutate in
                    try tx.enumerateObjects(forKeys: keys, inCollection: "a") { _, _, _ in try mutate(tx) }
                }
            ),
            (
                "metadata",
                { tx, keys, mutate in
                    try tx.enumerateMetadata(forKeys: keys, inCollection: "a") { _, _, _ in try mutate(tx) }
                }
            ),
            (
                "rows",
                { tx, keys, mutate in
                    try tx.enumerateRows(forKeys: keys, inCollection: "a") { _, _, _, _ in try mutate(tx) }
                }
            ),
        ]
    }

    private func populated() throws -> TestDatabase {
        let test = try TestDatabase()
        test.database.registerCodable(String.self, forCollection: "a")
        try test.connection().readWrite { tx throws in
            for index in 1...3 {
                try tx.setObject("v\(index)", forKey: "k\(index)", inCollection: "a", withMetadata: "m\(index)")
            }
        }
        return test
    }

    @Test func removingEveryRowFromTheBodyThrowsAndCachesNothingStale() throws {
        for (name, enumerate) in Self.kinds {
            let test = try populated()
            let writer = try test.connection()
            let sibling = try test.connection()
            writer.flushMemory(.all)
            try writer.readWrite { tx throws in
                let error = #expect(throws: DatabaseError.self, "\(name)") {
                    try enumerate(tx, ["k1", "k2", "k3"]) { tx in
                        for index in 1...3 { try tx.removeObject(forKey: "k\(index)", inCollection: "a") }
                    }
                }
                #expect(error?.code == .mutationDuringEnumeration, "\(name)")
            }
            // The caller caught the error, so the removals commit.
            for connection in [writer, sibling] {
                try connection.read { tx throws in
                    #expect(try tx.numberOfKeys(inCollection: "a") == 0, "\(name)")
                    for index in 1...3 {
                        #expect(try tx.object(forKey: "k\(index)", inCollection: "a") == nil, "\(name)")
                        #expect(try tx.metadata(forKey: "k\(index)", inCollection: "a") == nil, "\(name)")
                        #expect(try !tx.hasObject(forKey: "k\(index)", inCollection: "a"), "\(name)")
                    }
                }
            }
        }
    }

    @Test func everyWriteKindIsDetectedAndStopOrTouchIsFine() throws {
        let mutations: [(ReadWriteTransaction) throws -> Void] = [
            { try $0.setObject("new", forKey: "added", inCollection: "a") },
            { try $0.removeObject(forKey: "k1", inCollection: "a") },
            { try $0.replaceObject("r", forKey: "k2", inCollection: "a") },
            { try $0.replaceMetadata(nil, forKey: "k2", inCollection: "a") },
            { try $0.removeObjects(forKeys: ["k3"], inCollection: "a") },
            { try $0.removeAllObjects(inCollection: "a") },
            { try $0.removeAllObjectsInAllCollections() },
        ]
        for (name, enumerate) in Self.kinds {
            let test = try populated()
            let writer = try test.connection()
            // Cached rows (first pass) and fetched rows (second pass) both detect it.
            for flush in [false, true] {
                for mutate in mutations {
                    if flush { writer.flushMemory(.all) }
                    let error = try #require(throws: DatabaseError.self, "\(name)") {
                        try writer.readWrite { tx in try enumerate(tx, ["k1", "k2", "k3", "missing"], mutate) }
                    }
                    #expect(error.code == .mutationDuringEnumeration, "\(name)")
                }
            }
            #expect(test.database.snapshot == 1, "\(name)")
            // Touches are not mutations.
            try writer.readWrite { tx throws in
                try enumerate(tx, ["k1", "k2", "k3", "missing"]) { try $0.touchObject(forKey: "k1", inCollection: "a") }
            }
        }
        // A write that sets stop ends the enumeration without an error.
        let test = try populated()
        let writer = try test.connection()
        writer.flushMemory(.all)
        var calls = 0
        try writer.readWrite { tx throws in
            try tx.enumerateObjects(forKeys: ["k1", "k2", "k3"], inCollection: "a") { _, _, stop in
                calls += 1
                for index in 1...3 { try tx.removeObject(forKey: "k\(index)", inCollection: "a") }
                stop = true
            }
        }
        #expect(calls == 1)
        try writer.read { tx throws in
            for index in 1...3 { #expect(try tx.object(forKey: "k\(index)", inCollection: "a") == nil) }
        }
    }

    @Test func aKeyListedTwiceIsReportedTwiceUntilAMutation() throws {
        let test = try populated()
        let writer = try test.connection()
        writer.flushMemory(.all)
        var seen: [Int] = []
        try writer.read { tx throws in
            try tx.enumerateObjects(forKeys: ["k1", "k1", "missing", "k2"], inCollection: "a") { index, object, _ in
                seen.append(index)
                #expect((object == nil) == (index == 2))
            }
        }
        #expect(seen.sorted() == [0, 1, 2, 3])
    }
}
