import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

extension Extensions {
    /// Hooks: which closure runs for which write, with what flags, and what a throwing or
    /// writing closure does to the transaction.
    @Suite struct HooksTests {
        private struct Boom: Error {}

        /// Records every call as a line of text.
        private func recordingHooks(_ log: Locked<[String]>, allowed: AllowList<String> = .all) -> Hooks {
            var hooks = Hooks(allowedCollections: allowed)
            hooks.willModifyRow = { _, collection, key, _, _, flags in
                log.append("will \(collection)/\(key) \(flags.rawValue)")
            }
            hooks.didModifyRow = { _, collection, key, object, metadata, flags in
                let value = (try object.value(as: Int.self)).map(String.init) ?? "-"
                let extra = (try metadata.value(as: String.self)) ?? "-"
                log.append("did \(collection)/\(key) \(flags.rawValue) \(value) \(extra)")
            }
            hooks.willRemoveRow = { _, collection, key in log.append("willRemove \(collection)/\(key)") }
            hooks.didRemoveRow = { _, collection, key in log.append("didRemove \(collection)/\(key)") }
            hooks.willRemoveAllRows = { _ in log.append("willRemoveAll *") }
            hooks.didRemoveAllRows = { _ in log.append("didRemoveAll *") }
            return hooks
        }

        private func take(_ log: Locked<[String]>) -> [String] {
            log.withLock { lines in
                defer { lines = [] }
                return lines
            }
        }

        /// A did-hook that reads its row back through the transaction sees the values just
        /// written, not the connection's cached old ones.
        @Test func aDidHookReadsTheNewValuesBackThroughTheTransaction() throws {
            let test = try TestDatabase()
            let log = Locked<[String]>([])
            var hooks = Hooks()
            hooks.didModifyRow = { tx, collection, key, _, _, _ in
                let object = try tx.object(forKey: key, inCollection: collection, as: Int.self)
                let metadata = try tx.metadata(forKey: key, inCollection: collection, as: String.self)
                log.append("\(object ?? -1) \(metadata ?? "-")")
            }
            try test.database.register(hooks, withName: "hooks")
            let connection = try test.connection()
            try connection.readWrite { tx in try tx.setObject(1, forKey: "a", inCollection: "c", withMetadata: "m") }
            // Read once so both values are in the connection's caches.
            _ = try connection.read { tx in
                (
                    try tx.object(forKey: "a", inCollection: "c", as: Int.self),
                    try tx.metadata(forKey: "a", inCollection: "c", as: String.self)
                )
            }
            try connection.readWrite { tx in try tx.setObject(2, forKey: "a", inCollection: "c", withMetadata: "n") }
            try connection.readWrite { tx in try tx.replaceObject(3, forKey: "a", inCollection: "c") }
            try connection.readWrite { tx in try tx.replaceMetadata("o", forKey: "a", inCollection: "c") }
            #expect(take(log) == ["1 m", "2 n", "3 n", "3 o"])
        }

        @Test func everyWriteCallsTheRightHooksWithTheRightFlags() throws {
            let test = try TestDatabase()
            let log = Locked<[String]>([])
            try test.database.register(recordingHooks(log), withName: "hooks")
            let connection = try test.connection()
            let inserted = Hooks.Flags([.inserted, .objectChanged, .metadataChanged]).rawValue
            let updated = Hooks.Flags([.updated, .objectChanged, .metadataChanged]).rawValue

            try connection.readWrite { tx in try tx.setObject(1, forKey: "a", inCollection: "c", withMetadata: "m") }
            #expect(take(log) == ["will c/a \(inserted)", "did c/a \(inserted) 1 m"])
            try connection.readWrite { tx in try tx.setObject(2, forKey: "a", inCollection: "c") }
            #expect(take(log) == ["will c/a \(updated)", "did c/a \(updated) 2 -"])
            try connection.readWrite { tx in try tx.replaceObject(3, forKey: "a", inCollection: "c") }
            let replacedObject = Hooks.Flags([.updated, .objectChanged]).rawValue
            #expect(take(log) == ["will c/a \(replacedObject)", "did c/a \(replacedObject) 3 -"])
            try connection.readWrite { tx in try tx.replaceMetadata("n", forKey: "a", inCollection: "c") }
            let replacedMetadata = Hooks.Flags([.updated, .metadataChanged]).rawValue
            #expect(take(log) == ["will c/a \(replacedMetadata)", "did c/a \(replacedMetadata) 3 n"])
            try connection.readWrite { tx in
                try tx.touchObject(forKey: "a", inCollection: "c")
                try tx.touchMetadata(forKey: "a", inCollection: "c")
                try tx.touchRow(forKey: "a", inCollection: "c")
                try tx.touchRow(forKey: "missing", inCollection: "c")
            }
            // A touch is neither an insert nor an update (YapDatabase's contract): only the touched flags.
            #expect(take(log) == ["did c/a 16 3 n", "did c/a 32 3 n", "did c/a 48 3 n"])
            try connection.readWrite { tx in
                try tx.setObject(4, forKey: "b", inCollection: "c")
                try tx.setObject(5, forKey: "d", inCollection: "c")
            }
            _ = take(log)
            try connection.readWrite { tx in try tx.removeObject(forKey: "a", inCollection: "c") }
            #expect(take(log) == ["willRemove c/a", "didRemove c/a"])
            try connection.readWrite { tx in try tx.removeObjects(forKeys: ["b", "nobody"], inCollection: "c") }
            #expect(take(log) == ["willRemove c/b", "didRemove c/b"])
            // A collection-wide removal reports each row, as YapDatabase's hooks do.
            try connection.readWrite { tx in try tx.removeAllObjects(inCollection: "c") }
            #expect(take(log) == ["willRemove c/d", "didRemove c/d"])
            try connection.readWrite { tx in try tx.removeAllObjectsInAllCollections() }
            #expect(take(log) == ["willRemoveAll *", "didRemoveAll *"])
        }

        @Test func theAllowListLimitsTheCollections() throws {
            let test = try TestDatabase()
            let log = Locked<[String]>([])
            try test.database.register(recordingHooks(log, allowed: .allExcept(["quiet"])), withName: "hooks")
            let connection = try test.connection()
            try connection.readWrite { tx in
                try tx.setObject(1, forKey: "a", inCollection: "quiet")
                try tx.replaceObject(2, forKey: "a", inCollection: "quiet")
                try tx.touchRow(forKey: "a", inCollection: "quiet")
                try tx.removeObject(forKey: "a", inCollection: "quiet")
                try tx.removeAllObjects(inCollection: "quiet")
            }
            #expect(take(log).isEmpty)
            try connection.readWrite { tx in try tx.removeAllObjectsInAllCollections() }
            #expect(take(log) == ["willRemoveAll *", "didRemoveAll *"])
        }

        @Test func valuesAreLoadedOnlyWhenRead() throws {
            let test = try TestDatabase()
            let loadedBefore = Locked<[Bool]>([])
            let escaped = Locked<[String]>([])
            var hooks = Hooks()
            nonisolated(unsafe) var kept: LazyValue?
            hooks.didModifyRow = { _, _, _, object, metadata, flags throws in
                guard flags.contains(.metadataChanged) && !flags.contains(.inserted) else { return }
                loadedBefore.append(object.isLoaded)
                let value = try object.value(as: Int.self)
                loadedBefore.append(object.isLoaded)
                kept = object
                escaped.append("value \(value ?? -1), metadata loaded \(metadata.isLoaded)")
            }
            test.database.registerCodable(Int.self, metadata: String.self, forCollection: "numbers")
            try test.database.register(hooks, withName: "hooks")
            let connection = try test.connection(config: ConnectionConfig(objectCacheEnabled: false))
            try connection.readWrite { tx in try tx.setObject(7, forKey: "a", inCollection: "numbers") }
            try connection.readWrite { tx in try tx.replaceMetadata("m", forKey: "a", inCollection: "numbers") }
            #expect(loadedBefore.value == [false, true])
            #expect(escaped.value == ["value 7, metadata loaded true"])
            // A value kept past its transaction answers with what it loaded, never by touching the
            // finished transaction.
            #expect(try kept?.value(as: Int.self) == 7)
            nonisolated(unsafe) var unread: LazyValue?
            var lazy = Hooks()
            lazy.didModifyRow = { _, _, _, object, _, _ in unread = object }
            try test.database.unregister(extensionNamed: "hooks")
            try test.database.register(lazy, withName: "lazy")
            try connection.readWrite { tx in try tx.replaceMetadata("n", forKey: "a", inCollection: "numbers") }
            let value = try #require(unread)
            #expect(!value.isLoaded)
            #expect(throws: DatabaseError.self) { _ = try value.value() }
        }

        @Test func aThrowingHookRollsTheWholeTransactionBack() throws {
            let test = try TestDatabase()
            var hooks = Hooks()
            hooks.willModifyRow = { _, _, key, _, _, _ in if key == "bad" { throw Boom() } }
            hooks.didRemoveRow = { _, _, key in if key == "keep" { throw Boom() } }
            try test.database.register(hooks, withName: "guard")
            let connection = try test.connection()
            try connection.readWrite { tx in try tx.setObject(1, forKey: "keep", inCollection: nil) }
            #expect(throws: Boom.self) {
                try connection.readWrite { tx in
                    try tx.setObject(2, forKey: "fine", inCollection: nil)
                    try tx.setObject(3, forKey: "bad", inCollection: nil)
                }
            }
            // Caught inside the block: the transaction is rolled back all the same, and the hook's
            // error is thrown by readWrite so the caller learns that nothing was written.
            let outcome = Result {
                try connection.readWrite { tx in
                    try tx.setObject(2, forKey: "fine", inCollection: nil)
                    #expect(throws: Boom.self) { try tx.removeObject(forKey: "keep", inCollection: nil) }
                }
            }
            #expect(throws: Boom.self) { try outcome.get() }
            try connection.read { tx throws in
                #expect(try tx.allKeys(inCollection: nil) == ["keep"])
            }
        }

        @Test func removingACollectionCallsThePerRowHooksOncePerRow() throws {
            let test = try TestDatabase()
            let log = Locked<[String]>([])
            try test.database.register(recordingHooks(log), withName: "hooks")
            let connection = try test.connection()
            try connection.readWrite { tx in
                for index in 0..<4 { try tx.setObject(index, forKey: "k\(index)", inCollection: "four") }
                try tx.setObject(9, forKey: "k0", inCollection: "other")
            }
            _ = take(log)
            try connection.readWrite { tx in try tx.removeAllObjects(inCollection: "four") }
            let lines = take(log)
            #expect(lines.filter { $0.hasPrefix("willRemove four/") }.count == 4)
            #expect(lines.filter { $0.hasPrefix("didRemove four/") }.count == 4)
            #expect(Set(lines) == Set((0..<4).flatMap { ["willRemove four/k\($0)", "didRemove four/k\($0)"] }))
            // Each row can still be read in its will-hook, and is gone in its did-hook.
            var probe = Hooks()
            let seen = Locked<[String]>([])
            probe.willRemoveRow = { tx, collection, key in
                seen.append("will \(key) \(try tx.hasObject(forKey: key, inCollection: collection))")
            }
            probe.didRemoveRow = { tx, collection, key in
                seen.append("did \(key) \(try tx.hasObject(forKey: key, inCollection: collection))")
            }
            try test.database.register(probe, withName: "probe")
            try connection.readWrite { tx in
                try tx.setObject(1, forKey: "x", inCollection: "four")
                try tx.removeAllObjects(inCollection: "four")
            }
            #expect(seen.value == ["will x true", "did x false"])
            #expect(try connection.read { tx in try tx.numberOfKeys(inCollection: "other") } == 1)
        }

        @Test func theCascadeExampleLeavesNoOrphansWhenAWholeCollectionGoes() throws {
            let test = try TestDatabase()
            var hooks = Hooks(allowedCollections: .only(["orders"]))
            hooks.didRemoveRow = { tx, _, key in
                try tx.removeObject(forKey: key, inCollection: "order-lines")
            }
            try test.database.register(hooks, withName: "cascade")
            let connection = try test.connection()
            try connection.readWrite { tx in
                for index in 0..<3 {
                    try tx.setObject(index, forKey: "o\(index)", inCollection: "orders")
                    try tx.setObject(index, forKey: "o\(index)", inCollection: "order-lines")
                }
                try tx.setObject(7, forKey: "unrelated", inCollection: "order-lines")
            }
            try connection.readWrite { tx in try tx.removeAllObjects(inCollection: "orders") }
            try connection.read { tx throws in
                #expect(try tx.numberOfKeys(inCollection: "orders") == 0)
                #expect(try tx.allKeys(inCollection: "order-lines") == ["unrelated"])
            }
        }

        @Test func hooksCanWriteAndTheirWritesCommitWithTheRow() throws {
            let test = try TestDatabase()
            var hooks = Hooks(allowedCollections: .only(["orders"]))
            hooks.didModifyRow = { tx, _, key, _, _, flags in
                if flags.contains(.inserted) { try tx.setObject("audit \(key)", forKey: key, inCollection: "audit") }
            }
            hooks.didRemoveRow = { tx, _, key in
                try tx.removeAllObjects(inCollection: "lines-\(key)")
            }
            try test.database.register(hooks, withName: "cascade")
            let connection = try test.connection()
            try connection.readWrite { tx in
                try tx.setObject(1, forKey: "o1", inCollection: "orders")
                try tx.setObject(1, forKey: "l1", inCollection: "lines-o1")
                try tx.setObject(2, forKey: "l2", inCollection: "lines-o1")
            }
            try connection.read { tx throws in
                #expect(try tx.object(forKey: "o1", inCollection: "audit", as: String.self) == "audit o1")
            }
            try connection.readWrite { tx in try tx.removeObject(forKey: "o1", inCollection: "orders") }
            try connection.read { tx throws in
                #expect(try tx.numberOfKeys(inCollection: "lines-o1") == 0)
                #expect(try tx.numberOfKeys(inCollection: "audit") == 1)
            }
        }
    }
}
