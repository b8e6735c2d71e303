import Coffer
import CofferTestSupport
import Foundation
import Testing

extension ExtensionKit {
    /// Extensions that depend on others: registration needs the dependency, unregistering it takes
    /// its dependents along in the same transaction, and hooks run dependencies first.
    @Suite struct ExtensionDependencyTests {
        @Test func registeringWithAMissingDependencyFailsClearly() throws {
            let test = try KitDatabase()
            let error = databaseError {
                try test.database.register(RowCounter(dependencies: ["base"]), withName: "dependent")
            }
            #expect(error?.code == .extensionFailure)
            #expect(error?.message.contains("\"base\"") == true)
            #expect(error?.message.contains("not registered") == true)
            #expect(test.database.registeredExtension("dependent") == nil)
            #expect(try test.schemaNames(withPrefix: "rowCounter_").isEmpty)
            #expect(try test.records(ofExtension: "dependent").isEmpty)

            try test.database.register(RowCounter(), withName: "base")
            try test.database.register(RowCounter(dependencies: ["base"]), withName: "dependent")
            #expect(Set(test.database.registeredExtensions.keys) == ["base", "dependent"])
        }

        @Test func unregisteringADependencyUnregistersItsDependentsTransitivelyInOneTransaction() throws {
            let test = try KitDatabase()
            let writer = try test.connection()
            let sibling = try test.connection()
            try writer.readWrite { tx in try addRows(tx, 2, in: "a") }
            try test.database.register(RowCounter(), withName: "a")
            try test.database.register(RowCounter(), withName: "d")
            try test.database.register(RowCounter(dependencies: ["a"]), withName: "b")
            try test.database.register(RowCounter(dependencies: ["b"]), withName: "c")
            for name in ["a", "b", "c", "d"] {
                #expect(try sibling.read { tx in try counter(tx, name).counts() } == ["a": 2])
            }

            let recorder = NotificationRecorder(test.database)
            let before = test.database.snapshot
            try test.database.unregister(extensionNamed: "a")
            #expect(test.database.snapshot == before + 1)
            let changeset = try #require(recorder.changeset(snapshot: before + 1))
            #expect(changeset.unregisteredExtensions == ["a", "b", "c"])
            #expect(Set(test.database.registeredExtensions.keys) == ["d"])
            #expect(try test.schemaNames(withPrefix: "rowCounter_") == ["rowCounter_d"])
            for name in ["a", "b", "c"] { #expect(try test.records(ofExtension: name).isEmpty, "\(name)") }
            try sibling.read { tx throws in
                for name in ["a", "b", "c"] { #expect(tx.ext(name) == nil, "\(name)") }
                #expect(try counter(tx, "d").counts() == ["a": 2])
            }
            // A dependent cannot come back without its dependency.
            #expect(
                code { try test.database.register(RowCounter(dependencies: ["b"]), withName: "c") } == .extensionFailure
            )

            // Unregistering a dependent leaves what it depends on.
            try test.database.register(RowCounter(dependencies: ["d"]), withName: "e")
            try test.database.register(RowCounter(dependencies: ["e"]), withName: "f")
            let middle = test.database.snapshot
            try test.database.unregister(extensionNamed: "e")
            #expect(try #require(recorder.changeset(snapshot: middle + 1)).unregisteredExtensions == ["e", "f"])
            #expect(Set(test.database.registeredExtensions.keys) == ["d"])
            #expect(try test.schemaNames(withPrefix: "rowCounter_") == ["rowCounter_d"])
            try writer.readWrite { tx in try addRows(tx, 1, in: "b") }
            #expect(try sibling.read { tx in try counter(tx, "d").counts() } == ["a": 2, "b": 1])
        }

        @Test func hooksAndFlushesRunInDependencyOrder() throws {
            let test = try KitDatabase()
            let log = Shared<[String]>([])
            try test.database.register(Tracer(label: "first", log: log), withName: "first")
            try test.database.register(Tracer(label: "loner", log: log), withName: "loner")
            try test.database.register(Tracer(label: "second", log: log, dependencies: ["first"]), withName: "second")
            try test.database.register(
                Tracer(label: "third", log: log, dependencies: ["second", "first"]), withName: "third")
            let order = ["first", "loner", "second", "third"]
            func each(_ event: String) -> [String] { order.map { "\($0) \(event)" } }

            let connection = try test.connection()
            log.update { $0 = [] }
            try connection.readWrite { tx in try tx.setObject("v", forKey: "k", inCollection: "c") }
            #expect(log.value == each("willInsert") + each("didInsert") + each("flush"))

            log.update { $0 = [] }
            try connection.readWrite { tx in
                try tx.setObject("w", forKey: "k", inCollection: "c")
                try tx.touchRow(forKey: "k", inCollection: "c")
                try tx.removeObject(forKey: "k", inCollection: "c")
                try tx.removeAllObjects(inCollection: "c")
                try tx.removeAllObjectsInAllCollections()
            }
            #expect(
                log.value
                    == each("willUpdate") + each("didUpdate") + each("didTouch") + each("willRemove")
                    + each("didRemove") + each("willRemoveAll") + each("didRemoveAll")
                    + each("willRemoveAllCollections") + each("didRemoveAllCollections"))
        }

        @Test func anExtensionHearsOnlyOfTheCollectionsItDerivesFrom() throws {
            let test = try KitDatabase()
            let log = Shared<[String]>([])
            try test.database.register(
                Tracer(label: "a", log: log, derivedCollections: .only(["a"])), withName: "a")
            try test.database.register(Tracer(label: "any", log: log), withName: "any")
            let connection = try test.connection()
            func each(_ events: String...) -> [String] {
                events.flatMap { event in [event.hasPrefix("any ") ? event : "a \(event)", "any \(event)"] }
            }
            func anyOnly(_ events: String...) -> [String] { events.map { "any \($0)" } }

            // Writes alternate between the collections, so the receivers the transaction kept for
            // the last collection are asked about again each time.
            try connection.readWrite { tx in
                try tx.setObject("v", forKey: "k", inCollection: "a")
                try tx.setObject("v", forKey: "k", inCollection: "b")
                try tx.setObject("w", forKey: "k", inCollection: "a")
                try tx.touchRow(forKey: "k", inCollection: "b")
                try tx.replaceObject("x", forKey: "k", inCollection: "b")
                try tx.replaceMetadata("m", forKey: "k", inCollection: "a")
                try tx.removeObjects(forKeys: ["k"], inCollection: "b")
                try tx.removeAllObjects(inCollection: "b")
                try tx.removeObject(forKey: "k", inCollection: "a")
            }
            #expect(
                log.value
                    == each("willInsert", "didInsert") + anyOnly("willInsert", "didInsert")
                    + each("willUpdate", "didUpdate") + anyOnly("didTouch", "willReplaceObject", "didReplaceObject")
                    + each("willReplaceMetadata", "didReplaceMetadata") + anyOnly("willRemove", "didRemove")
                    + anyOnly("willRemoveAll", "didRemoveAll") + each("willRemove", "didRemove")
                    + each("flush"))

            log.update { $0 = [] }
            try connection.readWrite { tx in try tx.removeAllObjectsInAllCollections() }
            #expect(log.value == each("willRemoveAllCollections", "didRemoveAllCollections"))
        }
    }
}
